package sites

import (
	"fmt"
	"strings"
)

// Chrome is the navigation, banner and footer text every HTML fixture
// carries around its content, which readers should leave out.
const (
	NavText    = "Home Products Pricing Blog Sign in"
	CookieText = "We use cookies to improve your experience. Accept all cookies."
	FooterText = "Copyright 2026 Example Docs. Privacy Terms Contact."
)

func chrome(title, body string) string {
	return fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{font-family:sans-serif}</style></head>
<body>
<header><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/pricing">Pricing</a> <a href="/blog">Blog</a> <a href="/login">Sign in</a></nav></header>
<div class="cookie-banner" id="cookie-consent"><p>We use cookies to improve your experience.</p><button>Accept all cookies.</button></div>
%s
<footer><p>Copyright 2026 Example Docs.</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a> <a href="/contact">Contact</a>.</footer>
</body></html>`, title, body)
}

// LongSections and LongParagraphs shape the long documentation page: each
// section has LongParagraphs paragraphs of about 1,000 characters.
const (
	LongSections   = 8
	LongParagraphs = 5
)

var words = strings.Fields(`the reader configures each stage with a contract that names inputs
outputs tools and a review gate so that a person can see exactly what the model saw and
change any step before the next one runs while the engine keeps history of every version`)

// Marker is the unique token in paragraph p of section s of the long page,
// so a test can tell which parts of the page reached the model.
func Marker(s, p int) string { return fmt.Sprintf("marker-%d-%d", s, p) }

func paragraph(s, p int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Fact %s: section %d paragraph %d holds value %d.", Marker(s, p), s, p, (s+1)*100+p)
	for i := 0; sb.Len() < 1000; i++ {
		sb.WriteByte(' ')
		sb.WriteString(words[(s*7+p*13+i)%len(words)])
	}
	sb.WriteByte('.')
	return sb.String()
}

// LongDoc returns the long documentation page: about 40,000 characters of
// main content in LongSections sections, inside site chrome.
func LongDoc() string {
	var sb strings.Builder
	sb.WriteString("<main><article><h1>Workspace Guide</h1>\n")
	for s := 0; s < LongSections; s++ {
		fmt.Fprintf(&sb, "<section><h2>Section %d</h2>\n", s)
		for p := 0; p < LongParagraphs; p++ {
			if p == 2 {
				fmt.Fprintf(&sb, "<h3>Details of section %d</h3>\n", s)
			}
			fmt.Fprintf(&sb, "<p>%s</p>\n", paragraph(s, p))
		}
		if s == 3 {
			sb.WriteString("<pre><code>icm run 01-scope\nicm approve 01-scope\n</code></pre>\n")
		}
		sb.WriteString("</section>\n")
	}
	sb.WriteString("</article></main>")
	return chrome("Workspace Guide - Example Docs", sb.String())
}

// ScriptText is the text the script-heavy page shows once its script ran;
// the served HTML does not contain it.
const ScriptText = "Rendered by script: the launch date is 14 March 2026."

// scriptPage builds its whole content in the browser, like a single-page
// app; a plain HTTP reader sees an empty shell. The text is assembled from
// pieces so that it is not in the HTML source.
var scriptPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>App Shell</title></head>
<body><div id="root">Loading…</div>
<script>
(function () {
  var parts = ["Rendered by", "script:", "the launch", "date is", "14 March", "2026."];
  var root = document.getElementById("root");
  root.innerHTML = "";
  var h = document.createElement("h1");
  h.textContent = "Launch " + "notes";
  root.appendChild(h);
  var p = document.createElement("p");
  p.textContent = parts.join(" ");
  root.appendChild(p);
  var a = document.createElement("a");
  a.href = "/docs/long";
  a.textContent = "Read the " + "guide";
  root.appendChild(a);
})();
</script></body></html>`

// LinkCount is how many distinct followable links the links page has,
// each once: 5 in the header, 10 chapters, 2 external, 3 in the footer.
const LinkCount = 5 + 10 + 2 + 3

var linksPage = func() string {
	var sb strings.Builder
	sb.WriteString("<main><h1>Resources</h1><ul>\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&sb, `<li><a href="/chapter/%d">Chapter %d</a></li>`+"\n", i, i)
	}
	// The same chapter again, a fragment of this page, non-web schemes,
	// and a label-less image link.
	sb.WriteString(`<li><a href="/chapter/1#intro">Chapter one again</a></li>
<li><a href="#top">Back to top</a></li>
<li><a href="mailto:docs@example.com">Mail us</a></li>
<li><a href="javascript:void(0)">Do nothing</a></li>
<li><a href="https://example.org/spec"><img alt="The spec" src="/s.png"></a></li>
<li><a href="https://example.org/a-very-long-link">` + strings.Repeat("very long label ", 20) + `</a></li>
</ul></main>`)
	return chrome("Resources", sb.String())
}()

// NestedOutline is the outline the nested-headings page must yield, one
// heading a line indented two spaces a level (chrome headings left out).
const NestedOutline = `h1 Field Manual
  h2 Getting started
    h3 Install
    h3 Configure
      h4 Ollama settings
      h4 SearXNG settings
  h2 Running stages
    h3 Review gates
  h2 Troubleshooting`

var nestedPage = chrome("Field Manual", `<nav><h2>Site navigation</h2></nav>
<main>
<h1>Field Manual</h1><p>How to run icm in the field.</p>
<h2>Getting started</h2><p>Start here.</p>
<h3>Install</h3><p>Install icm.</p>
<h3>Configure</h3><p>Configure it.</p>
<h4>Ollama settings</h4><p>Point at Ollama.</p>
<h4>SearXNG settings</h4><p>Point at SearXNG.</p>
<h2>Running stages</h2><p>Run them.</p>
<h3>Review gates</h3><p>Approve outputs.</p>
<h2>Troubleshooting</h2><p>When things fail.</p>
</main>`)

// PlainText is the body of the plain-text page.
const PlainText = "Plain notes.\n\nThe answer is 42."

// BeaconText is the visible text of the beacon page.
const BeaconText = "This page phones home."

// beaconPage's script requests the URL in its "to" query parameter in
// three ways (fetch, an image, a script tag), as a hostile page could.
var beaconPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Beacon</title></head>
<body><p>This page phones home.</p>
<script>
(function () {
  var to = new URLSearchParams(location.search).get("to");
  if (!to) { return; }
  fetch(to).catch(function () {});
  new Image().src = to + "?img";
  var s = document.createElement("script");
  s.src = to + "?script";
  document.body.appendChild(s);
})();
</script></body></html>`
