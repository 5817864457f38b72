"""The explorer's page scripts, one per view (run by ``st.navigation``, never imported)."""
