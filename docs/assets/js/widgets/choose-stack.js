/* Widget "choose-stack" (lesson 14): per kind of operation, the effort of each stack
 * (eager PyTorch, torch.compile, hand-written Triton, hand-written CUDA) against the speed-up
 * over eager that the book measured for it.
 *
 * Speed-ups come only from the committed data, through the values the prose uses (the
 * element's data-values, embedded by the build; see widgets.js). Each is one of:
 *   measured       a ratio of two measured times (or of bandwidths over the same bytes)
 *   bound          the most any kernel could reach: eager's time over the time to move the
 *                  fused bytes at the measured copy bandwidth (not a measurement of CUDA)
 *   not measured   the book has no number here (yet); the widget says what would settle it
 * Effort is the authors' estimate, on a five-step scale, and labelled as such everywhere.
 * Every number shown sits in an element with a data-out attribute.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;

  const STACKS = [
    { id: "eager", name: "eager PyTorch" },
    { id: "compile", name: "torch.compile" },
    { id: "triton", name: "Triton (hand-written)" },
    { id: "cuda", name: "CUDA C++ (hand-written)" },
  ];
  const EFFORT = ["none", "minutes", "hours", "days", "weeks"];

  // v(key) is the value on the selected device, or undefined. A speed-up function returns
  // a number, or undefined when any value it needs is missing.
  function ratio(a, b) {
    return a === undefined || b === undefined ? undefined : a / b;
  }

  // Lesson 12's forward rate of one implementation at N = 4096, d = 128, no mask.
  function attention(v, impl) {
    return v("attention.tflops:impl=" + impl + ",direction=forward,d=128,mask=full");
  }

  const PATTERNS = [
    {
      id: "elementwise",
      name: "Elementwise fusion",
      what: "bias + GELU + mask over a bf16 matrix (lesson 08), at the largest size measured",
      effort: { eager: 0, compile: 1, triton: 2, cuda: 3 },
      speedup: {
        eager: { kind: "measured", f: function (v) { return v("fused_activation.time:impl=eager") === undefined ? undefined : 1; },
          note: "the baseline: three kernels, each a round trip through HBM" },
        compile: { kind: "measured", f: function (v) { return ratio(v("fused_activation.time:impl=eager"), v("fused_activation.time:impl=compile")); },
          note: "Inductor fuses the chain into one generated Triton kernel" },
        triton: { kind: "measured", f: function (v) { return ratio(v("fused_activation.time:impl=eager"), v("fused_activation.time:impl=triton")); },
          note: "the book's fused kernel, kernels/fused_activation.py" },
        cuda: { kind: "bound", f: function (v) { return ratio(v("fused_activation.time:impl=eager"), v("fused_activation.floor:chain=fused")); },
          note: "not measured; no kernel can beat moving the fused bytes at the measured copy bandwidth" },
      },
    },
    {
      id: "norm",
      name: "Reduction or norm",
      what: "RMSNorm forward, bf16, hidden size 8192 (lesson 11)",
      effort: { eager: 0, compile: 1, triton: 3, cuda: 3 },
      speedup: {
        eager: { kind: "measured", f: function (v) { return v("rmsnorm.bandwidth:direction=forward,impl=eager,hidden=8192") === undefined ? undefined : 1; },
          note: "the baseline: the formula written with torch ops" },
        compile: { kind: "measured", f: function (v) { return ratio(v("rmsnorm.bandwidth:direction=forward,impl=compile,hidden=8192"), v("rmsnorm.bandwidth:direction=forward,impl=eager,hidden=8192")); },
          note: "Inductor's generated reduction kernel" },
        triton: { kind: "measured", f: function (v) { return ratio(v("rmsnorm.bandwidth:direction=forward,impl=triton,hidden=8192"), v("rmsnorm.bandwidth:direction=forward,impl=eager,hidden=8192")); },
          note: "the book's kernel, kernels/rmsnorm.py (forward and backward written by hand)" },
        cuda: { kind: "bound", f: function (v) {
          return ratio(ratio(v("rmsnorm.bandwidth:direction=forward,impl=triton,hidden=8192"), v("rmsnorm.of_copy:direction=forward,hidden=8192")), v("rmsnorm.bandwidth:direction=forward,impl=eager,hidden=8192"));
        }, note: "not measured; the bytes at the measured copy bandwidth cap any kernel" },
      },
    },
    {
      id: "matmul",
      name: "Matrix multiply",
      what: "bf16, 4096 × 4096 × 4096 (lesson 09)",
      effort: { eager: 0, compile: 1, triton: 3, cuda: 4 },
      speedup: {
        eager: { kind: "measured", f: function (v) { return v("matmul.tflops:impl=cublas,dtype=bfloat16,n=4096") === undefined ? undefined : 1; },
          note: "the baseline: torch.matmul, which calls cuBLAS" },
        compile: { kind: "measured", f: function (v) { return ratio(v("matmul.tflops:impl=compile,dtype=bfloat16,n=4096"), v("matmul.tflops:impl=cublas,dtype=bfloat16,n=4096")); },
          note: "mode=\"max-autotune\": Inductor's Triton matmul templates" },
        triton: { kind: "measured", f: function (v) { return ratio(v("matmul.tflops:impl=triton,dtype=bfloat16,n=4096"), v("matmul.tflops:impl=cublas,dtype=bfloat16,n=4096")); },
          note: "the book's autotuned kernel, kernels/matmul.py" },
        cuda: { kind: "measured", f: function (v) { return v("matmul.tflops:impl=cublas,dtype=bfloat16,n=4096") === undefined ? undefined : 1; },
          note: "eager already runs NVIDIA's own CUDA library (cuBLAS): that is this column" },
      },
      extra: function (v) {
        const a = v("matmul.epilogue_ratio:of=cublas_eager,to=triton_fused,n=8192");
        const b = v("matmul.epilogue_ratio:of=cublas_addmm,to=triton_fused,n=8192");
        if (a === undefined || b === undefined) return null;
        return ["With a bias + GELU epilogue fused in (8192³), the book's Triton kernel ran ",
          h("span", { "data-out": "epilogue-vs-eager", text: times(a) }), " as fast as cuBLAS followed by an eager epilogue, and ",
          h("span", { "data-out": "epilogue-vs-addmm", text: times(b) }), " as fast as torch.addmm followed by GELU (measured)."];
      },
    },
    {
      id: "attention",
      name: "Attention",
      what: "softmax(QKᵀ/√d)·V forward, bf16, N = 4,096, head size 128, no mask (lesson 12)",
      effort: { eager: 0, compile: 1, triton: 4, cuda: 4 },
      // The same FLOP count for every implementation, so a ratio of rates is a ratio of times.
      speedup: {
        eager: { kind: "measured", f: function (v) { return attention(v, "naive") === undefined ? undefined : 1; },
          note: "the baseline: two matmuls and a softmax in torch ops, the N×N scores written to HBM (lesson 12's naive attention)" },
        compile: { kind: "measured", f: function (v) { return ratio(attention(v, "flex"), attention(v, "naive")); },
          note: "FlexAttention: torch.compile turns flex_attention into a generated Triton kernel" },
        triton: { kind: "measured", f: function (v) { return ratio(attention(v, "triton"), attention(v, "naive")); },
          note: "the book's flash-attention kernel, kernels/attention.py" },
        cuda: { kind: "measured", f: function (v) { return ratio(attention(v, "sdpa_cudnn"), attention(v, "naive")); },
          note: "cuDNN's fused attention, NVIDIA's own CUDA, called through scaled_dot_product_attention" },
      },
    },
    {
      id: "novel",
      name: "A new, irregular operation",
      what: "ragged or data-dependent work that no library offers",
      effort: { eager: 0, compile: 1, triton: 3, cuda: 4 },
      speedup: {
        eager: { kind: "baseline", note: "the baseline: torch ops, often with padding or a Python loop" },
        compile: { kind: "not measured", note: "no general number: it depends on whether Inductor can trace and fuse the op" },
        triton: { kind: "not measured", note: "no general number: measure yours; the bound to compare with is the bytes it must move over the copy bandwidth" },
        cuda: { kind: "not measured", note: "no general number: worth it only where Triton cannot express the op" },
      },
    },
  ];

  // Python's ratio(): two decimals below 10, none above.
  function times(x) {
    return (x < 10 ? x.toFixed(2) : x.toFixed(0)) + "×";
  }

  function declaredKeys(el) {
    return (el.getAttribute("data-values") || "").split(/\s+/).filter(Boolean);
  }

  W.register("choose-stack", function mount(el) {
    const data = W.data();
    const keys = declaredKeys(el);
    const slugs = Object.keys(data.devices).filter(function (s) {
      return keys.some(function (k) {
        return data.values[k] && data.values[k][s] !== undefined;
      });
    });
    const state = { pattern: PATTERNS[0].id, slug: slugs[0] || null };

    const patternSelect = h("select", { "data-in": "pattern" });
    PATTERNS.forEach(function (p) {
      patternSelect.appendChild(h("option", { value: p.id, text: p.name }));
    });
    const deviceSelect = h("select", { "data-in": "device" });
    slugs.forEach(function (s) {
      deviceSelect.appendChild(h("option", { value: s, text: data.devices[s] }));
    });
    if (!slugs.length) {
      deviceSelect.appendChild(h("option", { value: "", text: "not yet measured" }));
      deviceSelect.disabled = true;
    }

    const what = h("p", { class: "book-widget__numbers", "data-out": "what", "aria-live": "polite" });
    const list = h("ul", { class: "book-widget__stacks" });
    const extra = h("p", { class: "book-widget__numbers", "data-out": "extra" });

    el.appendChild(h("p", { class: "book-widget__title", text: "Choose your stack: effort against speed-up" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("Pattern", patternSelect),
      W.field("Measured on", deviceSelect),
    ]));
    el.appendChild(what);
    el.appendChild(list);
    el.appendChild(extra);
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "Speed-up is eager's time over the stack's (above 1×: faster than eager), read from the " +
      "book's committed measurements; \"bound\" is the most any kernel could reach (the bytes at " +
      "the measured copy bandwidth), not a measured CUDA kernel. Effort is an estimate by the " +
      "book's authors, from none to weeks: the work beyond a working eager version, tests " +
      "included, for someone who has read this book.",
    ]));

    function value(key) {
      const per = data.values[key];
      return per && state.slug ? per[state.slug] : undefined;
    }

    function render() {
      const p = PATTERNS.find(function (x) { return x.id === state.pattern; });
      el.setAttribute("data-pattern", p.id);
      what.textContent = p.name + ": " + p.what + ".";
      list.textContent = "";
      const shown = STACKS.map(function (s) {
        const spec = p.speedup[s.id];
        const x = spec.f ? spec.f(value) : undefined;
        let kind = spec.kind;
        if (spec.f && x === undefined) kind = "not measured";
        return { stack: s, spec: spec, x: x, kind: kind };
      });
      const top = Math.max.apply(null, shown.map(function (r) { return r.x || 0; }).concat([1]));
      shown.forEach(function (r) {
        const id = r.stack.id;
        const effort = p.effort[id];
        const meter = h("span", { class: "book-widget__meter", "aria-hidden": "true" });
        for (let i = 1; i < EFFORT.length; i++) {
          meter.appendChild(h("span", { class: "book-widget__meter-step" + (i <= effort ? " book-widget__meter-step--on" : "") }));
        }
        let text;
        if (r.x !== undefined) {
          text = r.kind === "bound" ? "at most " + times(r.x) : times(r.x);
        } else if (r.kind === "baseline") {
          text = "1× by definition";
        } else {
          text = "not measured";
        }
        const bar = h("span", { class: "book-widget__bar-track", "aria-hidden": "true" });
        if (r.x !== undefined) {
          const fill = h("span", { class: "book-widget__bar-fill" + (r.kind === "bound" ? " book-widget__bar-fill--bound" : "") });
          fill.style.width = Math.max(1, Math.round(100 * r.x / top)) + "%";
          bar.appendChild(fill);
        }
        list.appendChild(h("li", { class: "book-widget__stack", "data-stack": id, "data-kind": r.kind }, [
          h("span", { class: "book-widget__stack-name", text: r.stack.name }),
          h("span", { class: "book-widget__stack-effort" }, [
            "effort ", meter, h("span", { "data-out": "effort-" + id, text: EFFORT[effort] }), " (estimate)",
          ]),
          h("span", { class: "book-widget__stack-speed" }, [
            "speed-up ", bar, h("span", { "data-out": "speedup-" + id, text: text }),
            r.kind === "measured" && r.x !== undefined ? " (measured)" : r.kind === "bound" ? " (bound)" : "",
          ]),
          h("span", { class: "book-widget__stack-note", "data-out": "note-" + id, text: r.spec.note }),
        ]));
      });
      extra.textContent = "";
      const more = p.extra ? p.extra(value) : null;
      (more || []).forEach(function (c) {
        extra.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
      });
      extra.hidden = !more;
    }

    patternSelect.addEventListener("change", function () {
      state.pattern = patternSelect.value;
      render();
    });
    deviceSelect.addEventListener("change", function () {
      state.slug = deviceSelect.value || null;
      render();
    });

    render();
  });
})();
