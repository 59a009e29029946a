"""Finding and installing servers in the window: the registry gallery, the install form, the consent card.

Widgets here only draw and emit signals; `GalleryController` talks to the core registry package
and the bridge. Imports: the core, the bridge and `ui.asks` (the consent card is an ask card).
"""
