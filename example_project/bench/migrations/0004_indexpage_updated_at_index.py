from django.db import migrations, models


class Migration(migrations.Migration):
    """The index sitemapkit.W061 recommends on a section's lastmod field, on the index
    cases' table: the index's validator then reads its newest lastmod from it."""

    dependencies = [
        ("bench", "0003_page_noindex"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="indexpage",
            index=models.Index(fields=["updated_at"], name="bench_indexpage_updated_at"),
        ),
    ]
