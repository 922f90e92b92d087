"""What the corpus' packages warn of, ignored in the third-party run: Django's
``DeprecationWarning``s of their own dependencies, which this project cannot mend.
djangocms-aldryn-newsblog 4.4 imports names django CMS 5 and djangocms-text
deprecate, as its models load (django.setup()) and as its migrations run;
djangocms-page-sitemap 1.4 reads ``Page.node``, which django CMS 5 deprecates."""

from __future__ import annotations

IGNORED = (
    "djangocms_text_ckeditor.fields.HTMLField is deprecated",
    "Using wizard_pool is deprecated",
    "The `node` has been removed from Page objects",
)
