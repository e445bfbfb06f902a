/* The one shared way to mount the book's interactive widgets.
 *
 * A page places a widget with one line of HTML in its Markdown:
 *     <div class="book-widget" data-widget="NAME"></div>
 * The build (scripts/book/hook.py) adds this loader and exactly the modules the page
 * uses, docs/assets/js/widgets/NAME.js, all deferred and in that order. Each module
 * registers itself:
 *     window.BookWidgets.register("NAME", function mount(el) { ... });
 * and the loader calls mount(el) once for every element of that name. A widget styles
 * itself with Material's CSS variables (see book.css), so it follows the light and dark
 * palettes with no redraw; one that must redraw can listen for "book-widget:scheme".
 *
 * Committed data. A widget that shows measured numbers declares what it reads on its
 * element, and the build embeds exactly that, once per page, from figures/data:
 *     <div class="book-widget" data-widget="NAME"
 *          data-needs="BENCHMARK ..." data-values="VALUE ..."></div>
 * data-needs names benchmarks (figures/schemas/BENCHMARK.json): their whole documents
 * (provenance, ceilings, rows), per device. data-values names the numbers of the prose's
 * {{ value DEVICE KIND NAME=VALUE ... }} placeholders, each written without spaces as
 * KIND or KIND:NAME=VALUE,NAME=VALUE (vector_add.bandwidth:impl=torch): the number the
 * figure module computes, before formatting (seconds, bytes/s, FLOP/s, ratios), per
 * device, under exactly that word. In the module:
 *     const d = window.BookWidgets.data();
 *     d.devices                       // {slug: "NVIDIA H100 80GB HBM3", ...}
 *     d.benchmarks.BENCHMARK[slug]    // the document, where that device has it
 *     d.values["KIND:NAME=VALUE"][slug]  // the number, where it computes on that device
 * A device without the data is absent, not null: the widget says "not yet measured".
 * An unknown benchmark, kind or parameter fails the build (scripts/book/hook.py).
 */
(function () {
  "use strict";
  if (window.BookWidgets) return;

  const registry = {};

  function mountOne(el) {
    if (el.__bookWidget) return;
    const name = el.getAttribute("data-widget");
    const mount = registry[name];
    if (!mount) return;
    el.__bookWidget = true;
    try {
      mount(el);
      el.setAttribute("data-mounted", "true");
    } catch (err) {
      console.error("book widget '" + name + "' failed to mount:", err);
    }
  }

  function whenParsed(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  }

  // The modules are deferred after this loader, so each registers once the page is parsed
  // and its elements are mounted at once.
  function register(name, mount) {
    registry[name] = mount;
    whenParsed(function () {
      document.querySelectorAll(".book-widget").forEach(function (el) {
        if (el.getAttribute("data-widget") === name) mountOne(el);
      });
    });
  }

  // By the load event every deferred module has run: an element still unmounted names a
  // widget whose module never registered.
  function checkAll() {
    document.querySelectorAll(".book-widget").forEach(function (el) {
      if (!el.__bookWidget) {
        console.error("book widget '" + el.getAttribute("data-widget") + "' is not registered");
      }
    });
  }

  /* Small helpers the widgets share: build an element, a labelled control. */
  let uid = 0;
  function h(tag, attrs, children) {
    const el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") el.textContent = attrs[k];
      else el.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return el;
  }
  function field(labelText, control) {
    const id = "book-widget-" + ++uid;
    control.id = id;
    return h("div", { class: "book-widget__field" }, [h("label", { for: id, text: labelText }), control]);
  }
  function schemeName() {
    return document.body.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "light";
  }

  // The page's embedded data (see the header), parsed once; empty where none is embedded.
  let dataCache = null;
  function data() {
    if (dataCache === null) {
      const tag = document.getElementById("book-widget-data");
      dataCache = tag ? JSON.parse(tag.textContent) : {};
      ["devices", "benchmarks", "values"].forEach(function (k) {
        dataCache[k] = dataCache[k] || {};
      });
    }
    return dataCache;
  }

  window.BookWidgets = { register: register, h: h, field: field, scheme: schemeName, data: data };

  function watchScheme() {
    new MutationObserver(function () {
      document.querySelectorAll(".book-widget[data-mounted]").forEach(function (el) {
        el.dispatchEvent(new CustomEvent("book-widget:scheme", { detail: schemeName() }));
      });
    }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  whenParsed(watchScheme);
  if (document.readyState === "complete") checkAll();
  else window.addEventListener("load", checkAll);
})();
