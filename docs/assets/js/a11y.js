/* Small accessibility fixes to the theme's markup (checked by axe-core in the tests).
 * - Material's search overlay is a dialog without a name; give it one.
 * - A wide table scrolls sideways inside its wrapper; a keyboard user can only scroll it
 *   if the wrapper can take focus, so such a wrapper gets tabindex=0 and a name (checked
 *   again when the window is resized, since narrower screens make more tables scroll).
 *   The same for the code and output cells of the lab notebooks.
 * - What is wider than the screen says so (issue 20). A sideways scroller (a table's
 *   wrapper, a code block) gets data-scroll: "start", "middle" or "end", or none when it
 *   fits; book.css fades the edge where more waits. A wide table also gets data-scrollable
 *   (book.css keeps its first column in place) and a line above it that says to scroll. */
(function () {
  "use strict";
  function name() {
    document.querySelectorAll(".md-search[role='dialog']").forEach(function (el) {
      if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", "Search");
    });
  }
  // What may scroll sideways, and what to call it: tables, and the code and output cells
  // of the lab notebooks (rendered by mkdocs-jupyter).
  const SCROLLERS = [
    [".md-typeset__scrollwrap", "Table (scrolls sideways)"],
    [".jupyter-wrapper .highlight-ipynb pre", "Code (scrolls sideways)"],
    [".jupyter-wrapper .jp-OutputArea pre", "Output (scrolls sideways)"],
  ];
  function scrollers() {
    SCROLLERS.forEach(function (pair) { scrollable(pair[0], pair[1]); });
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(cue);
    document.querySelectorAll(".md-typeset pre > code, .jupyter-wrapper .highlight-ipynb pre").forEach(track);
  }
  // Where a sideways scroller stands: at its start, in the middle, or at its end; null
  // when everything fits.
  function position(el) {
    if (el.scrollWidth <= el.clientWidth + 1) return null;
    if (el.scrollLeft <= 1) return "start";
    return el.scrollLeft + el.clientWidth >= el.scrollWidth - 1 ? "end" : "middle";
  }
  function mark(el) {
    const at = position(el);
    if (at) el.setAttribute("data-scroll", at);
    else el.removeAttribute("data-scroll");
    return at;
  }
  function track(el) {
    if (!el.__bookTracked) {
      el.__bookTracked = true;
      el.addEventListener("scroll", function () { mark(el); }, { passive: true });
    }
    return mark(el);
  }
  function cue(wrap) {
    const wide = track(wrap) !== null;
    let hint = wrap.previousElementSibling;
    if (!hint || !hint.classList.contains("book-table-cue")) {
      if (!wide) return;
      hint = document.createElement("p");
      hint.className = "book-table-cue";
      hint.setAttribute("aria-hidden", "true");  // the wrapper's own name says it scrolls
      hint.textContent = "Wider than the page: scroll the table sideways \u2192 (its first column stays)";
      wrap.parentNode.insertBefore(hint, wrap);
    }
    hint.hidden = !wide;
    if (wide) wrap.setAttribute("data-scrollable", "true");
    else wrap.removeAttribute("data-scrollable");
  }
  function scrollable(selector, label) {
    document.querySelectorAll(selector).forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "region");
        if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", label);
      } else if (el.getAttribute("tabindex") === "0") {
        el.removeAttribute("tabindex");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
      }
    });
  }
  function all() {
    name();
    scrollers();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", all);
  else all();
  window.addEventListener("load", scrollers);
  window.addEventListener("resize", scrollers);
})();
