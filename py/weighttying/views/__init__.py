"""One module per section, `views/<id>.py`: everything the section shows that depends on its state, as named
HTML fragments, with no Panel. What a view module is (its members and their defaults) is `contract.View`, whose
module docstring says it in full; `contract.view(sid)` loads a section's view, checked. Shared HTML pieces live in
`views/kit/`; no view imports another.
"""
