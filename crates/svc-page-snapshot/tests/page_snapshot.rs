//! `page_snapshot` on real-looking pages: a shop listing of 200 products, a
//! news article wrapped in navigation, ads, scripts and styles, a page of
//! large data tables, and an app shell that is almost all script.

use svc_page_snapshot::{Snapshot, estimate_tokens, snapshot};

const SHOP: &str = include_str!("fixtures/snapshot/shop.html");
const ARTICLE: &str = include_str!("fixtures/snapshot/article.html");
const TABLE: &str = include_str!("fixtures/snapshot/table.html");
const SCRIPTS: &str = include_str!("fixtures/snapshot/scripts.html");

const PAGES: [(&str, &str); 4] = [("shop", SHOP), ("article", ARTICLE), ("table", TABLE), ("scripts", SCRIPTS)];

/// Big enough for any fixture's whole outline.
const UNLIMITED: usize = 1_000_000;

fn full(page: &str) -> Snapshot {
    let s = snapshot(page, "", UNLIMITED);
    assert!(!s.truncated);
    s
}

fn assert_fits(s: &Snapshot, budget: usize, what: &str) {
    let tokens = estimate_tokens(&s.text);
    assert_eq!(s.tokens, tokens, "{what}: reported tokens");
    assert!(tokens <= budget, "{what}: {tokens} tokens over a budget of {budget}:\n{}", s.text);
}

/// A small deterministic generator (xorshift) for garbage input.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Tag soup: unbalanced tags, stray attributes, comments, scripts, entities,
/// non-ASCII text and raw bytes.
fn garbage(seed: u64) -> String {
    // One piece a line.
    let pieces: Vec<&str> = r#"<div class="a b">
</div>
<ul id=x>
<li class=item>
</li>
<p>
<table><tr><td>
</td>
<a href="/p?q=1&amp;r=2" onclick="x()">
</a>
<script>var s = '</div>';</script>
<style>p{}</style>
<!-- comment -->
<!--
-->
<svg><path d=M0/></svg>
<img src=x.png alt="">
<br>
<
>
"
&nbsp;
&#x1F600;
&bogus;
text
Prix 12,50 €
日本語のテキスト
🎉
<input type=hidden value=secret>
<template><b>t</b></template>
<title>T</title>
<span>
</span>
<select><option>o</option>
<h1>
</body>
<html>
<frameset>
<math><mi>x</mi></math>
<button aria-label="Close dialog">
<div data-json='{"a":[1,2,3]}'>"#
        .lines()
        .chain([" ", "\t\n  ", "\u{0}"])
        .collect();
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let len = 1 + rng.next() % 300;
    (0..len).map(|_| rng.pick(&pieces)).collect()
}

#[test]
fn the_budget_is_never_exceeded() {
    let mut budgets: Vec<usize> = (0..=20).collect();
    budgets.extend([24, 32, 50, 64, 100, 150, 200, 300, 500, 1000, 2000, 5000, UNLIMITED]);
    let requests = ["", ".price", "document.querySelectorAll('#most-active tr.row td.num') // \"Maria Chen\""];
    for (name, page) in PAGES {
        for budget in &budgets {
            // Two requests over the tiny budgets, all of them over the rest.
            let requests = if *budget <= 20 { &requests[..2] } else { &requests[..] };
            for request in requests {
                let s = snapshot(page, request, *budget);
                assert_fits(&s, *budget, &format!("{name} / {request:?} / {budget}"));
            }
        }
    }
}

#[test]
fn the_budget_holds_on_garbage_and_empty_input() {
    let mut inputs: Vec<String> = vec![
        String::new(),
        " ".into(),
        "<".into(),
        "<<<>>>".into(),
        "plain text, no tags at all".into(),
        "<html><head></head><body></body></html>".into(),
        "<title>only a title that is rather long, longer than a tiny budget</title>".into(),
        "a".repeat(100_000),
        format!("<p>{}</p>", "word ".repeat(50_000)),
        "<div>".repeat(3_000),
        format!("<ul>{}</ul>", "<li>x</li>".repeat(5_000)),
        String::from_utf8_lossy(&(0..=255u8).cycle().take(4096).collect::<Vec<_>>()).into_owned(),
    ];
    inputs.extend((0..80).map(garbage));
    for (i, html) in inputs.iter().enumerate() {
        for budget in [0, 1, 2, 3, 5, 10, 50, 200, 1000] {
            for request in [".item x", "\"text\" 日本 🎉 <>"] {
                let s = snapshot(html, request, budget);
                assert_fits(&s, budget, &format!("input {i} / {request:?} / {budget}"));
            }
        }
    }
}

#[test]
fn scripts_styles_comments_and_head_are_gone() {
    for (name, page) in PAGES {
        let text = full(page).text;
        for gone in [
            "gtag",
            "dataLayer",
            "googletag",
            "function",
            "console.log",
            "__INITIAL_STATE__",
            "font-weight",
            "text-decoration",
            "border-collapse",
            "animation",
            "Google Tag Manager",
            "header starts",
            "build 2025",
            "enable JavaScript",
            "ld+json",
            "viewport",
            "stylesheet",
            "canonical",
            "comment-tpl",
            "{{author}}",
            "<",
        ] {
            assert!(!text.contains(gone), "{name}: {gone:?} survived:\n{text}");
        }
    }
}

#[test]
fn noise_attributes_and_secrets_are_dropped() {
    let text = full(SHOP).text;
    for gone in ["onclick", "style=", "loading", "width", "srcset", "itemprop", "placeholder", "csrf", "9f8e7d6c5b4a"] {
        assert!(!text.contains(gone), "{gone:?} survived:\n{text}");
    }
}

#[test]
fn class_id_href_src_and_aria_are_kept() {
    let shop = full(SHOP).text;
    for kept in [
        "title \"Home & Kitchen — 200 products | Example Shop\"",
        "ul#product-grid.product-grid",
        "header#top.site-header",
        "li.product-card[data-product-id=10400][data-sku=SKU-10400]",
        "h3.product-card__title > a[href=/products/10400] \"",
        "img.product-card__image[src=https://cdn.example-shop.test/img/products/10400/main_640x640.webp",
        "div.rating[aria-label=\"Rated ",
        "span.price \"$",
        "button.btn.btn--add-to-cart[type=button][data-action=add-to-cart] \"Add to cart\"",
        "input.search__input[type=search][name=q][aria-label=\"Search products\"]",
        "li > a.footer__link[href=/company/about-us] \"About us\"",
    ] {
        assert!(shop.contains(kept), "{kept:?} missing:\n{shop}");
    }
    let article = full(ARTICLE).text;
    for kept in [
        "h1.article__headline \"Council approves $48M Riverside bridge rebuild\"",
        "a.byline__author[href=/staff/maria-chen] \"Maria Chen\"",
        "img.article__image[src=/img/2025/10/riverside-bridge-1200.jpg][alt=\"The Riverside bridge at dusk",
        "div#comments-root[data-thread-id=riverside-bridge]",
        "nav.nav[role=navigation]",
    ] {
        assert!(article.contains(kept), "{kept:?} missing:\n{article}");
    }
}

#[test]
fn long_repeated_lists_are_sampled() {
    let shop = full(SHOP).text;
    assert!(shop.contains("… 196 more li.product-card like these"), "{shop}");
    assert_eq!(shop.matches("li.product-card[").count(), 4, "{shop}");
    // The first three and the last of the 200.
    for id in ["10400", "10401", "10402", "10599"] {
        assert!(shop.contains(&format!("[data-product-id={id}]")), "{id} missing:\n{shop}");
    }
    let table = full(TABLE).text;
    assert!(table.contains("… 296 more tr.row like these"), "{table}");
    // Rows of one-line cells print as one line each, header row included.
    assert!(
        table.contains("tr.row | td.sym > a[href=/quote/ACME] \"ACME\" | td.name \"Acme Holdings Inc.\""),
        "{table}"
    );
    assert!(table.contains("thead > tr | th[data-key=sym] \"Symbol\" | th[data-key=name] \"Name\""), "{table}");
    // Short lists and prose are left whole.
    let article = full(ARTICLE).text;
    assert_eq!(article.matches("\n   p \"").count(), 7, "{article}");
}

#[test]
fn a_page_of_scripts_shrinks_to_its_markup() {
    assert!(SCRIPTS.len() > 90_000);
    let s = full(SCRIPTS);
    assert_eq!(s.text, "title \"App\"\ndiv#root > div.spinner[role=status][aria-label=Loading]");
    assert!(s.tokens < 40);
}

#[test]
fn the_price_block_survives_a_small_budget_and_the_footer_does_not() {
    let budget = 150;
    assert!(full(SHOP).tokens > 10 * budget);
    let request = "const prices = [...document.querySelectorAll('.product-card .price')].map(e => e.textContent)";
    let s = snapshot(SHOP, request, budget);
    assert_fits(&s, budget, "shop");
    assert!(s.truncated);
    assert!(s.text.starts_with("title \"Home & Kitchen"), "{}", s.text);
    assert!(s.text.matches("span.price \"$").count() >= 2, "{}", s.text);
    assert!(s.text.contains("ul#product-grid.product-grid"), "{}", s.text);
    for gone in ["footer", "About us", "Privacy policy", "main-nav", "filters"] {
        assert!(!s.text.contains(gone), "{gone:?} survived:\n{}", s.text);
    }
    // Dropped parts are marked.
    assert!(s.text.lines().any(|l| l.trim() == "…"), "{}", s.text);

    // Asked about the footer instead, the same budget keeps the footer.
    let s = snapshot(SHOP, "the legal links in the footer: .footer__link", budget);
    assert_fits(&s, budget, "shop footer");
    assert!(s.text.contains("a.footer__link[href=/legal/"), "{}", s.text);
    assert!(!s.text.contains("span.price"), "{}", s.text);
}

#[test]
fn the_request_picks_the_article_parts_and_the_table() {
    let s = snapshot(ARTICLE, "Get the author (.byline__author) and when it was published (time)", 200);
    assert_fits(&s, 200, "article");
    assert!(s.text.contains("\"Maria Chen\""), "{}", s.text);
    assert!(s.text.contains("time.byline__time"), "{}", s.text);
    assert!(!s.text.contains("Corrections"), "{}", s.text);

    let s = snapshot(TABLE, "for (const row of document.querySelectorAll('table#most-active tbody tr')) { }", 300);
    assert_fits(&s, 300, "table");
    assert!(s.text.contains("tr.row | td.sym"), "{}", s.text);
    assert!(!s.text.contains("\"Technology\""), "{}", s.text);
}

#[test]
fn trimmed_output_keeps_document_order() {
    let whole: Vec<String> = full(SHOP).text.lines().map(str::to_string).collect();
    for budget in [100, 200, 400, 800] {
        let s = snapshot(SHOP, ".price .rating__count", budget);
        let mut last = 0;
        for line in s.text.lines() {
            if let Some(at) = whole.iter().skip(last).position(|w| w == line) {
                last += at + 1;
            } else {
                // `…` gap lines, and ancestors shown without attributes.
                assert!(line.trim() == "…" || !line.contains('['), "{budget}: {line:?} out of order:\n{}", s.text);
            }
        }
    }
}

#[test]
fn an_outline_that_fits_is_returned_whole_and_the_same_every_time() {
    for (name, page) in PAGES {
        let whole = full(page);
        let again = snapshot(page, ".price", whole.tokens);
        assert_eq!(again, whole, "{name}");
        let under = snapshot(page, ".price", whole.tokens - 1);
        assert!(under.truncated, "{name}");
        assert_eq!(snapshot(page, ".price", 300), snapshot(page, ".price", 300), "{name}");
    }
}
