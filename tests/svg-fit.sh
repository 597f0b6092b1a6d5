#!/bin/sh
# tests/svg-fit.sh FILE.svg: every <text> of the picture inside its viewBox,
# and no two texts on top of each other, judged from the SVG alone.
#
# A text's box: its x (start, middle or end anchored) and baseline y from
# its attributes; its height the font size (the element's, else the root
# <svg>'s); its width the characters (an entity counts one) times 0.6 of
# the font size, 0.65 when bold: what DejaVu Sans and Liberation Sans,
# the usual sans-serif fonts, need for ASCII text on average.  Exit 0 when
# every box is inside and no two on the same line come closer than 10 px
# (nor overlap by more than 2 px in height); else
# one line per text that is not, and exit 1.  One element per line (as
# xvbd writes them, a rotated one inside its <g transform> on the same
# line); no other tool needed.
f=${1:?usage: svg-fit.sh FILE.svg}
awk '
function attr(s, name,    m) {
	if (match(s, " " name "=\"[^\"]*\"")) {
		m = substr(s, RSTART + length(name) + 3, RLENGTH - length(name) - 4)
		return m
	}
	return ""
}
/<svg / {
	vb = attr($0, "viewBox"); split(vb, v, " ")
	W = v[3] + 0; H = v[4] + 0
	root = attr($0, "font-size"); if (root == "") root = 16
}
/<text / {
	x = attr($0, "x") + 0; y = attr($0, "y") + 0
	anchor = attr($0, "text-anchor"); size = attr($0, "font-size")
	if (size == "") size = root
	bold = attr($0, "font-weight") == "bold"
	t = $0; sub(/^.*<text[^>]*>/, "", t); sub(/<\/text>.*$/, "", t)
	gsub(/&[a-z]+;/, "x", t)
	w = length(t) * size * (bold ? 0.65 : 0.6)
	x0 = anchor == "middle" ? x - w / 2 : anchor == "end" ? x - w : x
	y0 = y - size; x1 = x0 + w; y1 = y
	# <g transform="translate(TX TY) rotate(A)"> around it: the box of
	# the four corners turned and moved
	if (match($0, /translate\([-0-9. ]*\) *rotate\([-0-9.]*\)/)) {
		tr = substr($0, RSTART, RLENGTH); gsub(/[a-z()]/, " ", tr)
		split(tr, g, " "); a = g[3] * 3.14159265 / 180
		bx0 = 1e9; bx1 = -1e9; by0 = 1e9; by1 = -1e9
		for (c = 0; c < 4; c++) {
			cx = c % 2 ? x1 : x0; cy = c < 2 ? y0 : y1
			rx = g[1] + cx * cos(a) - cy * sin(a)
			ry = g[2] + cx * sin(a) + cy * cos(a)
			if (rx < bx0) bx0 = rx; if (rx > bx1) bx1 = rx
			if (ry < by0) by0 = ry; if (ry > by1) by1 = ry
		}
		x0 = bx0; x1 = bx1; y0 = by0; y1 = by1; w = x1 - x0
		y = y1; size = y1 - y0; R[n + 1] = 1
	}
	n++; X0[n] = x0; X1[n] = x0 + w; Y0[n] = y - size; Y1[n] = y; T[n] = t
	if (x0 < 0 || x0 + w > W || y - size < 0 || y > H) {
		printf "outside %dx%d: x %.0f..%.0f y %.0f..%.0f: %s\n", W, H, \
			x0, x0 + w, y - size, y, t
		bad++
	}
}
END {
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			# two turned labels: their boxes, not their text, meet
			if (!(R[i] && R[j]) && X0[i] < X1[j] + 10 && X0[j] < X1[i] + 10 &&
			    Y0[i] + 2 < Y1[j] && Y0[j] + 2 < Y1[i]) {
				printf "too close: \"%s\" and \"%s\"\n", T[i], T[j]
				bad++
			}
	if (!W) { print "no viewBox"; bad++ }
	exit bad ? 1 : 0
}' "$f"
