from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django_sitemapkit.robots import sitemap_lines

from blog.models import Category, Post


def home(request: HttpRequest) -> HttpResponse:
    context = {
        "categories": Category.objects.all(),
        "posts": Post.objects.published().select_related("category")[:10],
    }
    return render(request, "blog/home.html", context)


def about(request: HttpRequest) -> HttpResponse:
    return render(request, "blog/about.html")


def post_list(request: HttpRequest) -> HttpResponse:
    posts = Post.objects.published().select_related("category")
    page = Paginator(posts, 50).get_page(request.GET.get("page"))
    return render(request, "blog/post_list.html", {"page": page})


def post_detail(request: HttpRequest, category: str, slug: str) -> HttpResponse:
    post = get_object_or_404(
        Post.objects.published().select_related("category"), category__slug=category, slug=slug
    )
    return render(request, "blog/post_detail.html", {"post": post})


def category_detail(request: HttpRequest, slug: str) -> HttpResponse:
    category = get_object_or_404(Category, slug=slug)
    posts = category.posts.published().select_related("category")[:20]
    return render(request, "blog/category_detail.html", {"category": category, "posts": posts})


def robots_txt(request: HttpRequest) -> HttpResponse:
    # The request's host chooses the site, whose index the Sitemap line names; a
    # host that is no site's gets no line.
    sitemaps = sitemap_lines(request)
    lines = ["User-agent: *", "Allow: /", *([""] if sitemaps else []), *sitemaps]
    return HttpResponse("".join(f"{line}\n" for line in lines), content_type="text/plain")
