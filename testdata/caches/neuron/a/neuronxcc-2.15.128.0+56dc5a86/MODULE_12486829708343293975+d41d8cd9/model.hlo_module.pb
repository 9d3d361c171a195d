fixture: built to the layout, not made by the stack (see PROVENANCE.md)
