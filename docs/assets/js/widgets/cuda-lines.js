/* Widget "cuda-lines" (lesson 02): the same kernel in Triton and in CUDA, line by line.
 *
 * The page places the widget around two listings that the build includes from the
 * repository (pymdownx.snippets): the whole-row softmax kernel of kernels/softmax.py and
 * its hand-written CUDA twin, kernels/cuda/softmax_rows.cu. Nothing of either is in this
 * file: the widget reads both listings' text, splits the Triton kernel into statements
 * and the CUDA file into parts at its markers ("// triton: TEXT" stands for the Triton
 * statement that begins with TEXT; "// cuda-only: WHY" has no Triton line), and shows each
 * Triton statement as a button that opens the CUDA written for it, with a running count
 * of lines of code (not blank, not comment) on both sides. The CUDA file's "// status:"
 * line says whether it has been compiled; the widget shows that line as it is.
 * Without JavaScript the reader sees the two listings in full.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const CUDA_FILE = "kernels/cuda/softmax_rows.cu";
  const MARKER = /^\s*\/\/ (triton|cuda-only): (.*)$/;
  const STATUS = /^\/\/ status:\s*(.*)$/;

  // Bracket depth change of one Python line, strings and comment left out.
  function depthChange(line) {
    const bare = line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""').replace(/#.*$/, "");
    let d = 0;
    for (let i = 0; i < bare.length; i++) {
      const c = bare.charAt(i);
      if (c === "(" || c === "[" || c === "{") d += 1;
      else if (c === ")" || c === "]" || c === "}") d -= 1;
    }
    return d;
  }

  // The Triton kernel as statements: a statement runs over as many lines as its brackets
  // stay open. Comment-only and blank lines belong to none.
  function tritonStatements(text) {
    const stmts = [];
    let cur = null;
    let depth = 0;
    text.split("\n").forEach(function (line) {
      const t = line.trim();
      if (cur) {
        cur.lines.push(line);
        depth += depthChange(line);
        if (depth <= 0) cur = null;
        return;
      }
      if (!t || t.charAt(0) === "#") return;
      cur = { key: t, lines: [line], parts: [] };
      stmts.push(cur);
      depth = depthChange(line);
      if (depth <= 0) cur = null;
    });
    return stmts;
  }

  function trimBlank(lines) {
    let a = 0;
    let b = lines.length;
    while (a < b && !lines[a].trim()) a++;
    while (b > a && !lines[b - 1].trim()) b--;
    return { lines: lines.slice(a, b), skip: a };
  }

  // The CUDA file as parts, each from a marker to the next, with 1-based line numbers.
  function cudaParts(text) {
    const parts = [];
    let status = null;
    let cur = null;
    text.split("\n").forEach(function (line, i) {
      const m = MARKER.exec(line);
      if (m) {
        cur = { kind: m[1], target: m[2].trim(), raw: [], first: i + 2 };
        parts.push(cur);
        return;
      }
      if (cur) cur.raw.push(line);
      else {
        const s = STATUS.exec(line);
        if (s) status = s[1].trim();
      }
    });
    parts.forEach(function (p) {
      const t = trimBlank(p.raw);
      p.lines = t.lines;
      p.first += t.skip;
      p.last = p.first + p.lines.length - 1;
    });
    return { parts: parts, status: status };
  }

  function codeLines(lines, comment) {
    return lines.filter(function (l) {
      const t = l.trim();
      return t && t.indexOf(comment) !== 0;
    }).length;
  }

  // Common leading spaces off, so that a part cut from inside a function reads flush left.
  function dedent(lines) {
    let n = Infinity;
    lines.forEach(function (l) {
      if (l.trim()) n = Math.min(n, l.length - l.trimStart().length);
    });
    return lines.map(function (l) { return l.slice(n === Infinity ? 0 : n); });
  }

  W.register("cuda-lines", function mount(el) {
    const codes = el.querySelectorAll("pre > code");
    if (codes.length !== 2) throw new Error("cuda-lines needs two listings, Triton then CUDA; found " + codes.length);
    const stmts = tritonStatements(codes[0].textContent);
    const cuda = cudaParts(codes[1].textContent);
    const blocks = [codes[0].closest(".highlight") || codes[0].parentNode, codes[1].closest(".highlight") || codes[1].parentNode];

    const cudaOnly = [];
    const unmatched = [];
    cuda.parts.forEach(function (p) {
      if (p.kind === "cuda-only") {
        cudaOnly.push(p);
        return;
      }
      const hits = stmts.filter(function (s) { return s.key.indexOf(p.target) === 0; });
      if (hits.length === 1) hits[0].parts.push(p);
      else unmatched.push(p.target + " (" + hits.length + " Triton lines match)");
    });
    if (unmatched.length) console.error("cuda-lines: CUDA markers that match no single Triton line: " + unmatched.join("; "));
    const bare = stmts.filter(function (s) { return !s.parts.length; });
    if (bare.length) console.error("cuda-lines: Triton lines with no CUDA part: " + bare.map(function (s) { return s.key; }).join("; "));

    const out = {};
    function o(name, text) {
      out[name] = h("span", { "data-out": name, text: text === undefined ? "" : String(text) });
      return out[name];
    }

    // The status line, as the file says it. "compiled ..." is a claim that a test backs
    // (tests/kernels/test_softmax_cuda.py); anything else is shown as unchecked.
    const compiled = !!cuda.status && /^compiled\b/i.test(cuda.status);
    const statusText = compiled
      ? "Compiled and checked: " + cuda.status.replace(/^compiled\b[:,]?\s*/i, "")
      : "Unchecked: tests/kernels/test_softmax_cuda.py has not built this CUDA with nvcc and checked it against torch.softmax on a GPU (" + CUDA_FILE + " says: “" + (cuda.status || "no status") + "”).";
    const status = h("p", { class: "book-widget__cl-status", "data-out": "status", "data-compiled": String(compiled) }, [statusText]);

    let tTotal = 0;
    let cTotal = 0;
    const toggles = [];
    const list = h("ol", { class: "book-widget__cl-list", "aria-label": "The Triton kernel, one statement per item" });
    stmts.forEach(function (s, i) {
      const tLines = codeLines(s.lines, "#");
      let cLines = 0;
      s.parts.forEach(function (p) { cLines += codeLines(p.lines, "//"); });
      tTotal += tLines;
      cTotal += cLines;
      const id = "book-widget-cl-" + i + "-" + Math.random().toString(36).slice(2, 8);
      const panel = h("div", { class: "book-widget__cl-cuda", id: id, "data-cuda-for": i });
      panel.hidden = true;
      s.parts.forEach(function (p) {
        panel.appendChild(h("p", { class: "book-widget__cl-where", text: "CUDA, " + CUDA_FILE + " lines " + p.first + "–" + p.last + ":" }));
        panel.appendChild(h("pre", { class: "book-widget__cl-pre", tabindex: "0", "aria-label": "CUDA for this Triton line, lines " + p.first + " to " + p.last }, [
          h("code", { text: dedent(p.lines).join("\n") }),
        ]));
      });
      const toggle = h("button", {
        type: "button",
        class: "book-widget__cl-toggle",
        "aria-expanded": "false",
        "aria-controls": id,
        "data-line": i,
        "data-triton-lines": tLines,
        "data-cuda-lines": cLines,
      }, [
        h("span", { class: "book-widget__cl-code" }, [dedent(s.lines).join("\n")]),
        h("span", { class: "book-widget__cl-count", "data-out": "running" }, [
          "Triton " + tTotal + " · CUDA " + cTotal,
        ]),
      ]);
      toggle.setAttribute("data-triton-total", tTotal);
      toggle.setAttribute("data-cuda-total", cTotal);
      toggles.push(toggle);
      list.appendChild(h("li", {}, [toggle, panel]));
    });
    let onlyLines = 0;
    cudaOnly.forEach(function (p) { onlyLines += codeLines(p.lines, "//"); });

    const expandBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "expand", text: "Open all" });
    const collapseBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "collapse", text: "Close all" });
    const shownCount = h("span", { "data-out": "open", text: "0" });

    const full = h("details", { class: "book-widget__cl-files" }, [h("summary", { text: "Both files, in full" })]);
    blocks.forEach(function (b) { full.appendChild(b); });

    el.appendChild(h("p", { class: "book-widget__title", text: "The same kernel in CUDA" }));
    el.appendChild(status);
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "The Triton kernel: ", o("triton-lines", tTotal), " lines of code in ", o("statements", stmts.length),
      " statements. The CUDA for the same work: ", o("cuda-lines", cTotal), " lines, plus ", o("cuda-only-lines", onlyLines),
      " for the headers and the launch (which Triton's Python wrapper does). Blank lines and comments are not counted.",
    ]));
    el.appendChild(h("div", { class: "book-widget__buttons" }, [expandBtn, collapseBtn, h("span", { class: "book-widget__cl-open" }, [shownCount, " of " + stmts.length + " open"])]));
    el.appendChild(h("p", { class: "book-widget__note", text: "Each Triton line opens into its CUDA (Enter or Space; the arrow keys move between lines). The numbers on the right run down the kernel: lines of code so far in Triton · in CUDA." }));
    el.appendChild(list);
    if (cudaOnly.length) {
      const only = h("div", { class: "book-widget__cl-only" }, [h("p", { class: "book-widget__cl-where", text: "CUDA with no Triton line:" })]);
      cudaOnly.forEach(function (p) {
        only.appendChild(h("p", { class: "book-widget__cl-where", text: p.target + " (lines " + p.first + "–" + p.last + ", " + codeLines(p.lines, "//") + " of code)" }));
      });
      el.appendChild(only);
    }
    el.appendChild(full);

    function setOpen(toggle, open) {
      toggle.setAttribute("aria-expanded", String(open));
      document.getElementById(toggle.getAttribute("aria-controls")).hidden = !open;
    }
    function count() {
      shownCount.textContent = String(toggles.filter(function (t) { return t.getAttribute("aria-expanded") === "true"; }).length);
    }
    toggles.forEach(function (t, i) {
      t.addEventListener("click", function () {
        setOpen(t, t.getAttribute("aria-expanded") !== "true");
        count();
      });
      t.addEventListener("keydown", function (ev) {
        let j = null;
        if (ev.key === "ArrowDown") j = Math.min(toggles.length - 1, i + 1);
        else if (ev.key === "ArrowUp") j = Math.max(0, i - 1);
        else if (ev.key === "Home") j = 0;
        else if (ev.key === "End") j = toggles.length - 1;
        if (j === null) return;
        ev.preventDefault();
        toggles[j].focus();
      });
    });
    expandBtn.addEventListener("click", function () {
      toggles.forEach(function (t) { setOpen(t, true); });
      count();
    });
    collapseBtn.addEventListener("click", function () {
      toggles.forEach(function (t) { setOpen(t, false); });
      count();
    });
  });
})();
