/* Widget "flash-walk" (lesson 12): one query block's walk over the K/V blocks.
 *
 * The reader picks the sequence length N, BLOCK_M (queries per program), BLOCK_N (keys
 * per K/V block), causal or not, which query block and which of its rows to follow, and
 * a seed. The grid shows every (query block, K/V block) tile: computed in full, computed
 * with a mask (the causal diagonal, or keys past N), or skipped. Stepping consumes the
 * program's K/V blocks one at a time and shows, for the followed row, the online softmax
 * exactly: block maximum, running max m, rescale factor alpha = exp(m_old - m_new),
 * running sum l and the accumulator acc (one value per key, so acc is one number). At the
 * end acc / l stands beside the plain softmax-weighted sum of the same scores.
 *
 * The scores and values are small made-up numbers (one decimal), not q·k: a linear
 * congruential generator seeded by the reader, mirrored in tests/site/test_widget_flash_walk.py.
 * Every number shown sits in an element with a data-out attribute; data-value holds it at
 * full precision for the tests.
 *
 * The query block and row the reader picked are kept as asked and only clamped for
 * display: typing N = 16 passes through N = 1, which has one query block, and must not
 * leave the walk on block 0 (issue 20). A number typed out of range is clamped into it
 * when the field is left.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const N_MIN = 1;
  const N_MAX = 64;
  const BLOCKS = [2, 4, 8, 16];
  const SEED_MAX = 99999;

  // ---- the numbers: a seeded LCG, then the walk (all of it mirrored in the test) -------

  // x_{n+1} = (1664525 x_n + 1013904223) mod 2^32, x_0 = seed. Output k (from 0) is x_{k+1}.
  // 1664525 * (2^32 - 1) < 2^53: the product is exact in a double.
  function lcg(seed, count) {
    const out = new Array(count);
    let x = seed;
    for (let k = 0; k < count; k++) {
      x = (1664525 * x + 1013904223) % 4294967296;
      out[k] = x;
    }
    return out;
  }

  // Score of query i and key j: output i * 64 + j, mapped to -3.0 ... 3.0 in steps of 0.1.
  // Value of key j: output 64 * 64 + j, mapped to -1.0 ... 1.0 in steps of 0.1.
  function makeData(seed) {
    const xs = lcg(seed, N_MAX * N_MAX + N_MAX);
    return {
      score: function (i, j) {
        return (Math.floor((xs[i * N_MAX + j] * 61) / 4294967296) - 30) / 10;
      },
      value: function (j) {
        return (Math.floor((xs[N_MAX * N_MAX + j] * 21) / 4294967296) - 10) / 10;
      },
    };
  }

  // Each K/V block's fate in program qb: "skipped" (causal, every key after every query of
  // the block: the loop stops before it), "partial" (loaded, some score masked: the causal
  // diagonal or keys past N), or "full".
  function blockKind(n, bm, bn, causal, qb, kb) {
    const q0 = qb * bm;
    const k0 = kb * bn;
    if (causal && k0 > q0 + bm - 1) return "skipped";
    if ((causal && k0 + bn - 1 > q0) || k0 + bn > n) return "partial";
    return "full";
  }

  // The walk of row i (0 <= i < N) of program qb over the K/V blocks it loads.
  function walk(p, data) {
    const nkv = Math.ceil(p.n / p.bn);
    const i = p.qb * p.bm + p.row;
    const steps = [];
    let m = -Infinity;
    let l = 0;
    let acc = 0;
    for (let kb = 0; kb < nkv; kb++) {
      if (blockKind(p.n, p.bm, p.bn, p.causal, p.qb, kb) === "skipped") continue;
      const keys = [];
      let blockMax = -Infinity;
      for (let k = kb * p.bn; k < (kb + 1) * p.bn; k++) {
        let why = "";
        if (k >= p.n) why = "pad";
        else if (p.causal && k > i) why = "causal";
        const key = { k: k, why: why };
        if (!why) {
          key.s = data.score(i, k);
          key.v = data.value(k);
          blockMax = Math.max(blockMax, key.s);
        }
        keys.push(key);
      }
      const mNew = Math.max(m, blockMax);
      // m = -inf before the first block: alpha = exp(-inf) = 0 (there is nothing to rescale).
      const alpha = m === -Infinity ? 0 : Math.exp(m - mNew);
      let pSum = 0;
      let pv = 0;
      keys.forEach(function (key) {
        if (key.why) return;
        key.p = Math.exp(key.s - mNew);
        pSum += key.p;
        pv += key.p * key.v;
      });
      const step = { kb: kb, keys: keys, blockMax: blockMax, mOld: m, mNew: mNew, alpha: alpha,
        lOld: l, accOld: acc, pSum: pSum, pv: pv };
      l = l * alpha + pSum;
      acc = acc * alpha + pv;
      m = mNew;
      step.l = l;
      step.acc = acc;
      steps.push(step);
    }
    // The plain softmax of the same row over every key it may see, then the weighted sum.
    let mAll = -Infinity;
    const seen = [];
    for (let k = 0; k < p.n; k++) {
      if (p.causal && k > i) break;
      seen.push(k);
      mAll = Math.max(mAll, data.score(i, k));
    }
    let z = 0;
    seen.forEach(function (k) { z += Math.exp(data.score(i, k) - mAll); });
    let direct = 0;
    seen.forEach(function (k) { direct += (Math.exp(data.score(i, k) - mAll) / z) * data.value(k); });
    return { i: i, nkv: nkv, steps: steps, out: acc / l, direct: direct, seen: seen.length };
  }

  // ---- formatting ------------------------------------------------------------------------

  function num(x, digits) {
    if (x === -Infinity) return "−∞";
    const t = x.toFixed(digits);
    return t.charAt(0) === "-" ? "−" + t.slice(1) : t;
  }

  function readInt(input, lo, hi) {
    const v = parseInt(input.value, 10);
    if (!Number.isFinite(v) || v < lo || v > hi) return null;
    return v;
  }

  W.register("flash-walk", function mount(el) {
    const state = { n: 12, bm: 4, bn: 4, causal: true, qb: 2, row: 1, seed: 21, step: 0 };
    // What the reader asked for; state.qb and state.row are these, clamped to the grid.
    const wanted = { qb: state.qb, row: state.row };

    const nInput = h("input", { type: "number", min: N_MIN, max: N_MAX, step: 1, value: state.n, "data-in": "n", inputmode: "numeric" });
    function blockSelect(name, v) {
      const s = h("select", { "data-in": name });
      BLOCKS.forEach(function (b) {
        const o = h("option", { value: b, text: String(b) });
        if (b === v) o.selected = true;
        s.appendChild(o);
      });
      return s;
    }
    const bmSelect = blockSelect("block_m", state.bm);
    const bnSelect = blockSelect("block_n", state.bn);
    const causalBox = h("input", { type: "checkbox", "data-in": "causal" });
    causalBox.checked = state.causal;
    const qbInput = h("input", { type: "number", min: 0, max: 0, step: 1, value: state.qb, "data-in": "q_block", inputmode: "numeric" });
    const rowInput = h("input", { type: "number", min: 0, max: 0, step: 1, value: state.row, "data-in": "row", inputmode: "numeric" });
    const seedInput = h("input", { type: "number", min: 0, max: SEED_MAX, step: 1, value: state.seed, "data-in": "seed", inputmode: "numeric" });

    const startBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "start", text: "◀◀ Start" });
    const prevBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "prev", text: "◀ Back" });
    const nextBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "step", text: "Next block ▶" });
    const endBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "end", text: "End ▶▶" });

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }
    function set(name, x, digits) {
      out[name].textContent = digits === undefined ? String(x) : num(x, digits);
      out[name].setAttribute("data-value", String(x));
    }

    const grid = h("div", { class: "book-widget__fa-grid", role: "img", "data-out": "grid" });
    const legend = h("ul", { class: "book-widget__legend" }, [
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__fa--full", "aria-hidden": "true" }), "loaded, no score masked (filled)"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__fa--partial", "aria-hidden": "true" }), "loaded, some scores masked: the causal diagonal or keys past N (half filled)"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__fa--skipped", "aria-hidden": "true" }), "skipped: every key comes after every query (dashed, empty)"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__fa--current", "aria-hidden": "true" }), "the block being consumed (thick outline)"]),
    ]);
    const keysBox = h("div", { class: "book-widget__fa-keys", "data-out": "keys" });
    const explain = h("p", { class: "book-widget__explain", "data-out": "explain", "aria-live": "polite" });
    const historyBody = h("tbody", {});
    const history = h("div", { class: "book-widget__scroll" }, [
      h("table", { class: "book-widget__table", "data-out": "history" }, [
        h("caption", { text: "The running values of the followed row after each block" }),
        h("thead", {}, [h("tr", {}, [
          h("th", { scope: "col", text: "K/V block" }),
          h("th", { scope: "col", text: "m" }),
          h("th", { scope: "col", text: "α" }),
          h("th", { scope: "col", text: "l" }),
          h("th", { scope: "col", text: "acc" }),
        ])]),
        historyBody,
      ]),
    ]);
    const finalBox = h("p", { class: "book-widget__numbers", "data-out": "final" }, [
      "acc / l = ", o("out-online"), "; softmax of the row's ", o("seen"), " visible scores, weighted sum of v, computed directly: ",
      o("out-direct"), " (difference ", o("diff"), ").",
    ]);

    el.appendChild(h("p", { class: "book-widget__title", text: "One query block's walk over K and V" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("N (sequence)", nInput),
      W.field("BLOCK_M", bmSelect),
      W.field("BLOCK_N", bnSelect),
      W.field("Causal", causalBox),
    ]));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("Query block", qbInput),
      W.field("Row in block", rowInput),
      W.field("Seed", seedInput),
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "Query block ", o("q-block"), " (rows ", o("q-first"), " … ", o("q-last"), ") loads ", o("visited"), " of ", o("kv-blocks"),
      " K/V blocks: ", o("full"), " in full, ", o("partial"), " with a mask, ", o("skipped"), " skipped. The whole grid computes ",
      o("grid-computed"), " of ", o("grid-total"), " score tiles.",
    ]));
    el.appendChild(grid);
    el.appendChild(legend);
    el.appendChild(h("div", { class: "book-widget__buttons" }, [startBtn, prevBtn, nextBtn, endBtn]));
    el.appendChild(h("p", { class: "book-widget__numbers", "aria-live": "polite" }, [
      "Row i = ", o("row-index"), ", after ", o("consumed"), " of ", o("steps"), " blocks: m = ", o("m"), ", l = ", o("l"), ", acc = ", o("acc"), ".",
    ]));
    el.appendChild(explain);
    el.appendChild(keysBox);
    el.appendChild(history);
    el.appendChild(finalBox);
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "Made-up scores and values (one decimal, from the seed), one value per key so that acc is a single number; " +
      "in a kernel a score is q·k scaled by 1/√d, v is a vector of d numbers, and exp may be computed as exp2 with log2(e) folded into that scale. " +
      "The running max, sum and rescaling are the same. Numbers are shown to 4 decimals.",
    ]));

    function clampInputs() {
      const nq = Math.ceil(state.n / state.bm);
      state.qb = Math.min(wanted.qb, nq - 1);
      const rows = Math.min(state.bm, state.n - state.qb * state.bm);
      state.row = Math.min(wanted.row, rows - 1);
      qbInput.max = nq - 1;
      qbInput.value = state.qb;
      rowInput.max = rows - 1;
      rowInput.value = state.row;
      return nq;
    }

    function drawGrid(nq, nkv, current) {
      grid.textContent = "";
      grid.style.setProperty("--book-fa-cols", nkv);
      const counts = { full: 0, partial: 0, skipped: 0 };
      grid.appendChild(h("span", { class: "book-widget__fa-head", text: "Q\\KV" }));
      for (let kb = 0; kb < nkv; kb++) {
        grid.appendChild(h("span", { class: "book-widget__fa-head" + (kb === current ? " book-widget__fa-head--on" : ""), text: String(kb) }));
      }
      for (let qb = 0; qb < nq; qb++) {
        const mine = qb === state.qb;
        grid.appendChild(h("span", { class: "book-widget__fa-head" + (mine ? " book-widget__fa-head--on" : ""), text: String(qb) }));
        for (let kb = 0; kb < nkv; kb++) {
          const kind = blockKind(state.n, state.bm, state.bn, state.causal, qb, kb);
          counts[kind] += 1;
          let cls = "book-widget__fa-cell book-widget__fa--" + kind;
          if (mine) cls += " book-widget__fa-cell--mine";
          if (mine && kb === current) cls += " book-widget__fa--current";
          grid.appendChild(h("span", { class: cls, "data-q": qb, "data-kv": kb, "data-kind": kind }));
        }
      }
      return counts;
    }

    function keyChip(key) {
      if (key.why) {
        const reason = key.why === "pad" ? "past N: masked" : "k > i: masked";
        return h("span", { class: "book-widget__fa-key book-widget__fa-key--masked", "data-k": key.k }, ["k " + key.k + " · " + reason]);
      }
      return h("span", { class: "book-widget__fa-key", "data-k": key.k, "data-p": String(key.p) }, [
        "k " + key.k + " · s " + num(key.s, 1) + " · p " + num(key.p, 4) + " · v " + num(key.v, 1),
      ]);
    }

    function render() {
      const nq = clampInputs();
      const data = makeData(state.seed);
      const wk = walk({ n: state.n, bm: state.bm, bn: state.bn, causal: state.causal, qb: state.qb, row: state.row }, data);
      state.step = Math.min(state.step, wk.steps.length);
      const cur = state.step > 0 ? wk.steps[state.step - 1] : null;
      const counts = drawGrid(nq, wk.nkv, cur ? cur.kb : -1);

      const mine = { full: 0, partial: 0, skipped: 0 };
      for (let kb = 0; kb < wk.nkv; kb++) mine[blockKind(state.n, state.bm, state.bn, state.causal, state.qb, kb)] += 1;
      set("q-block", state.qb);
      set("q-first", state.qb * state.bm);
      set("q-last", Math.min(state.n, (state.qb + 1) * state.bm) - 1);
      set("visited", wk.steps.length);
      set("kv-blocks", wk.nkv);
      set("full", mine.full);
      set("partial", mine.partial);
      set("skipped", mine.skipped);
      set("grid-computed", counts.full + counts.partial);
      set("grid-total", nq * wk.nkv);
      set("row-index", wk.i);
      set("consumed", state.step);
      set("steps", wk.steps.length);
      set("m", cur ? cur.mNew : -Infinity, 4);
      set("l", cur ? cur.l : 0, 4);
      set("acc", cur ? cur.acc : 0, 4);
      grid.setAttribute("aria-label", nq + " query blocks by " + wk.nkv + " K/V blocks" + (state.causal ? ", causal" : "") +
        ": " + counts.full + " tiles loaded in full, " + counts.partial + " with a mask, " + counts.skipped +
        " skipped. Query block " + state.qb + (cur ? " is consuming K/V block " + cur.kb : " has not started") + ".");

      keysBox.textContent = "";
      if (!cur) {
        explain.textContent = "Before the loop: m = −∞, l = 0, acc = 0. Each step loads one K/V block, scores it against the query block, " +
          "and updates the three running values of every row; the text follows row i = " + wk.i + ".";
      } else {
        const masked = cur.keys.filter(function (k) { return k.why; }).length;
        explain.textContent = "";
        explain.appendChild(h("span", {}, [
          "Block " + cur.kb + " (keys " + cur.keys[0].k + " … " + cur.keys[cur.keys.length - 1].k + "): " +
          (masked ? masked + " of its " + cur.keys.length + " scores are masked to −∞ for this row. " : "") +
          "Block max ", o("block-max"), "; m = max(", o("m-old"), ", block max) = ", o("m-new"), "; α = exp(m_old − m_new) = ", o("alpha"),
          (cur.mOld === -Infinity ? " (m was −∞: nothing to rescale yet)" : "") + ". " +
          "Σp = ", o("p-sum"), ", so l = ", o("l-old"), " × α + Σp = ", o("l-new"), "; Σp·v = ", o("pv-sum"), ", so acc = ", o("acc-old"),
          " × α + Σp·v = ", o("acc-new"), ".",
        ]));
        set("block-max", cur.blockMax, 4);
        set("m-old", cur.mOld, 4);
        set("m-new", cur.mNew, 4);
        set("alpha", cur.alpha, 4);
        set("p-sum", cur.pSum, 4);
        set("l-old", cur.lOld, 4);
        set("l-new", cur.l, 4);
        set("pv-sum", cur.pv, 4);
        set("acc-old", cur.accOld, 4);
        set("acc-new", cur.acc, 4);
        cur.keys.forEach(function (key) { keysBox.appendChild(keyChip(key)); });
      }

      historyBody.textContent = "";
      wk.steps.slice(0, state.step).forEach(function (s) {
        historyBody.appendChild(h("tr", { "data-kv": s.kb }, [
          h("td", { text: String(s.kb) }),
          h("td", { text: num(s.mNew, 4) }),
          h("td", { text: num(s.alpha, 4) }),
          h("td", { text: num(s.l, 4) }),
          h("td", { text: num(s.acc, 4) }),
        ]));
      });
      history.hidden = state.step === 0;

      const done = state.step === wk.steps.length;
      finalBox.hidden = !done;
      set("out-online", wk.out, 6);
      set("out-direct", wk.direct, 6);
      set("diff", Math.abs(wk.out - wk.direct).toExponential(1));
      set("seen", wk.seen);

      el.setAttribute("data-step", String(state.step));
      startBtn.disabled = prevBtn.disabled = state.step === 0;
      nextBtn.disabled = endBtn.disabled = done;
      if (document.activeElement && document.activeElement.disabled) {
        (done ? prevBtn : nextBtn).focus();
      }
    }

    function restart() {
      state.step = 0;
      render();
    }

    nInput.addEventListener("input", function () {
      const v = readInt(nInput, N_MIN, N_MAX);
      if (v === null) return;
      state.n = v;
      restart();
    });
    nInput.addEventListener("change", function () {
      const v = parseInt(nInput.value, 10);
      if (!Number.isFinite(v)) {
        nInput.value = state.n;
        return;
      }
      const c = Math.min(N_MAX, Math.max(N_MIN, v));
      nInput.value = c;
      if (c !== state.n) {
        state.n = c;
        restart();
      }
    });
    bmSelect.addEventListener("change", function () {
      state.bm = parseInt(bmSelect.value, 10);
      restart();
    });
    bnSelect.addEventListener("change", function () {
      state.bn = parseInt(bnSelect.value, 10);
      restart();
    });
    causalBox.addEventListener("change", function () {
      state.causal = causalBox.checked;
      restart();
    });
    [[qbInput, "qb"], [rowInput, "row"], [seedInput, "seed"]].forEach(function (pair) {
      const input = pair[0];
      const key = pair[1];
      input.addEventListener("input", function () {
        const v = readInt(input, 0, key === "seed" ? SEED_MAX : parseInt(input.max, 10));
        if (v === null) return;
        state[key] = v;
        if (key in wanted) wanted[key] = v;
        restart();
      });
      input.addEventListener("change", function () {
        if (readInt(input, 0, key === "seed" ? SEED_MAX : parseInt(input.max, 10)) === null) input.value = state[key];
      });
    });
    startBtn.addEventListener("click", function () {
      state.step = 0;
      render();
    });
    prevBtn.addEventListener("click", function () {
      state.step = Math.max(0, state.step - 1);
      render();
    });
    nextBtn.addEventListener("click", function () {
      state.step += 1;
      render();
    });
    endBtn.addEventListener("click", function () {
      state.step = Infinity;
      render();
    });

    render();
  });
})();
