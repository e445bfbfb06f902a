/* Small accessibility fixes to the theme's markup (checked by axe-core in the tests).
 * - Material's search overlay is a dialog without a name; give it one.
 * - A wide table scrolls sideways inside its wrapper; a keyboard user can only scroll it
 *   if the wrapper can take focus, so such a wrapper gets tabindex=0 and a name (checked
 *   again when the window is resized, since narrower screens make more tables scroll). */
(function () {
  "use strict";
  function name() {
    document.querySelectorAll(".md-search[role='dialog']").forEach(function (el) {
      if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", "Search");
    });
  }
  function scrollers() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "region");
        if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", "Table (scrolls sideways)");
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
