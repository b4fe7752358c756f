// Package fetch reads web pages for tools whose URLs come from a model.
// A model-chosen URL is untrusted input, so the Fetcher accepts only http
// and https, checks every address it connects to (on every redirect hop,
// at connect time, after DNS) against a deny table of loopback, private,
// link-local, CGNAT, unspecified and other special-purpose ranges unless an
// operator's allow-list names it, and bounds redirects, bytes (before and
// after decompression) and time (total and idle).
package fetch
