"""What the corpus' packages warn of, ignored in the third-party run: Django's
``DeprecationWarning``s of their own dependencies, which this project cannot mend.
djangocms-aldryn-newsblog 4.4 imports names django CMS 5 and djangocms-text
deprecate, as its models load (django.setup()) and as its migrations run;
djangocms-page-sitemap 1.4 reads ``Page.node``, which django CMS 5 deprecates;
djangocms-stories 0.9 lists its app configs' wizards as django CMS loads its apps,
a query Django warns of during app initialization, and its sitemap asks django CMS
for the languages without a site, which django CMS 5 deprecates."""

from __future__ import annotations

IGNORED = (
    "djangocms_text_ckeditor.fields.HTMLField is deprecated",
    "Using wizard_pool is deprecated",
    "The `node` has been removed from Page objects",
    "Accessing the database during app initialization is discouraged",
    "get_language_list called without specifying 'site_id'",
)
