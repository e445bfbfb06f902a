/* Small accessibility fixes to the theme's markup (checked by axe-core in the tests).
 * Material's search overlay is a dialog without a name; give it one. */
(function () {
  "use strict";
  function name() {
    document.querySelectorAll(".md-search[role='dialog']").forEach(function (el) {
      if (!el.getAttribute("aria-label")) el.setAttribute("aria-label", "Search");
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", name);
  else name();
})();
