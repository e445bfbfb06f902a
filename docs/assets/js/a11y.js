/* Small accessibility fixes to the theme's markup (checked by axe-core in the tests).
 * - Material's search overlay is a dialog without a name; give it one.
 * - A wide table scrolls sideways inside its wrapper; a keyboard user can only scroll it
 *   if the wrapper can take focus, so such a wrapper gets tabindex=0 and a name (checked
 *   again when the window is resized, since narrower screens make more tables scroll).
 *   The same for the code and output cells of the lab notebooks. */
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
  window.addEventListener("resize", scrollers);
})();
