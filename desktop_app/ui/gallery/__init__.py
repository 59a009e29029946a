"""Finding and installing servers in the window: the registry gallery, a domain's Server Cards
(Servers → Add from a domain…), the install form, the consent card.

Widgets here only draw and emit signals; `GalleryController` and `DomainController` talk to the core's
registry and discovery packages and the bridge. Imports: the core, the bridge and `ui.asks` (the
consent card is an ask card).
"""
