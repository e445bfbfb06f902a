/* Widget "program-order" (lesson 09): program order and L2 reuse.
 *
 * A square grid of output tiles, numbered by program id in launch order, row-major or
 * grouped (GROUP_M rows at a time), the mapping of kernels/matmul.py. The programs run in
 * waves of `wave` consecutive program ids; Step (or Play) moves on one wave. The counts
 * mirror the tile-load model of figures/matmul.py exactly (program_tiles, tile_loads):
 * within a wave each input tile is read once however many programs use it, nothing is
 * kept from one wave to the next, and K is as many tiles long as a side of the grid, so
 * a wave reads K tiles of a per distinct tile row and K tiles of b per distinct tile
 * column. Every number shown sits in an element with a data-out attribute.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  const SIDE_MIN = 4;
  const SIDE_MAX = 16;
  const GROUP_MIN = 1;
  const GROUP_MAX = 8;
  const PLAY_MS = 1000;

  // figures/matmul.py program_tiles: (pid_m, pid_n) of each program id, in launch order.
  function programTiles(numPidM, numPidN, groupM) {
    const tiles = [];
    for (let pid = 0; pid < numPidM * numPidN; pid++) {
      const inGroup = groupM * numPidN;
      const firstM = Math.floor(pid / inGroup) * groupM;
      const sizeM = Math.min(numPidM - firstM, groupM);
      tiles.push([firstM + ((pid % inGroup) % sizeM), Math.floor((pid % inGroup) / sizeM)]);
    }
    return tiles;
  }

  // The tiles one wave needs: the distinct tile rows (of a) and columns (of b) it touches.
  function waveSets(order, wave, index) {
    const chunk = order.slice(index * wave, (index + 1) * wave);
    const rows = new Set();
    const cols = new Set();
    chunk.forEach(function (t) {
      rows.add(t[0]);
      cols.add(t[1]);
    });
    return { chunk: chunk, rows: rows, cols: cols };
  }

  // figures/matmul.py tile_loads: (a tiles, b tiles) read by the first `waves` waves.
  function tileLoads(order, kTiles, wave, waves) {
    let a = 0;
    let b = 0;
    for (let i = 0; i * wave < order.length; i++) {
      if (waves !== null && i >= waves) break;
      const s = waveSets(order, wave, i);
      a += kTiles * s.rows.size;
      b += kTiles * s.cols.size;
    }
    return [a, b];
  }

  function readInt(input, lo, hi) {
    const v = parseInt(input.value, 10);
    if (!Number.isFinite(v) || v < lo || v > hi) return null;
    return v;
  }

  W.register("program-order", function mount(el) {
    const state = { side: 9, grouped: false, groupM: 3, wave: 9, index: 0 };
    let timer = null;
    const reduceMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

    const sideInput = h("input", { type: "number", min: SIDE_MIN, max: SIDE_MAX, step: 1, value: state.side, "data-in": "tiles", inputmode: "numeric" });
    const orderSelect = h("select", { "data-in": "order" }, [
      h("option", { value: "row-major", text: "row-major" }),
      h("option", { value: "grouped", text: "grouped" }),
    ]);
    const groupInput = h("input", { type: "number", min: GROUP_MIN, max: GROUP_MAX, step: 1, value: state.groupM, "data-in": "group_m", inputmode: "numeric" });
    const waveInput = h("input", { type: "number", min: 1, max: state.side * state.side, step: 1, value: state.wave, "data-in": "wave", inputmode: "numeric" });

    const prevBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "prev", text: "◀ Previous wave" });
    const nextBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "step", text: "Next wave ▶" });
    const playBtn = h("button", { type: "button", class: "book-widget__button", "data-action": "play", text: "Play" });

    const out = {};
    function o(name) {
      out[name] = h("span", { "data-out": name });
      return out[name];
    }

    const grid = h("div", { class: "book-widget__tiles", role: "img", "data-out": "grid" });
    const legend = h("ul", { class: "book-widget__legend" }, [
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__tile--wave", "aria-hidden": "true" }), "the current wave's programs (filled, bold)"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__tile--done", "aria-hidden": "true" }), "programs of earlier waves (dashed)"]),
      h("li", {}, [h("span", { class: "book-widget__swatch book-widget__tile-head--used", "aria-hidden": "true" }), "tile rows m and columns n the current wave reads (underlined)"]),
    ]);

    el.appendChild(h("p", { class: "book-widget__title", text: "Program order and the tiles a wave loads" }));
    el.appendChild(h("div", { class: "book-widget__controls" }, [
      W.field("Tiles per side", sideInput),
      W.field("Order", orderSelect),
      W.field("GROUP_M", groupInput),
      W.field("Wave (programs at once)", waveInput),
    ]));
    el.appendChild(h("div", { class: "book-widget__buttons" }, [prevBtn, nextBtn, playBtn]));
    el.appendChild(h("p", { class: "book-widget__numbers", "aria-live": "polite" }, [
      "Wave ", o("wave-index"), " of ", o("waves"), ": programs ", o("first-pid"), " … ", o("last-pid"),
      " (", o("programs"), " programs, group_m = ", o("group-m"), ").",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "This wave needs ", o("rows"), " tile rows of a and ", o("cols"), " tile columns of b; with K = ",
      o("k"), " tiles that is ", o("a-loads"), " tiles of a + ", o("b-loads"), " of b = ", o("loads"),
      " tiles loaded (", o("unshared"), " if no program shared a tile).",
    ]));
    el.appendChild(h("p", { class: "book-widget__numbers" }, [
      "All waves up to this one: ", o("total-a"), " of a + ", o("total-b"), " of b = ", o("total"), " tiles.",
    ]));
    el.appendChild(grid);
    el.appendChild(legend);
    el.appendChild(h("p", { class: "book-widget__note" }, [
      "The model of figures/matmul.py, not a measurement: K is taken as long as a side of the grid; " +
      "the programs of a wave share every input tile perfectly through the L2 and nothing is kept " +
      "from one wave to the next. Row-major order is GROUP_M = 1.",
    ]));

    function groupM() {
      return state.grouped ? state.groupM : 1;
    }

    function render() {
      const n = state.side;
      const g = groupM();
      const order = programTiles(n, n, g);
      const waves = Math.ceil(order.length / state.wave);
      state.index = Math.min(state.index, waves - 1);
      const cur = waveSets(order, state.wave, state.index);
      const first = state.index * state.wave;
      const last = first + cur.chunk.length - 1;
      const total = tileLoads(order, n, state.wave, state.index + 1);

      groupInput.disabled = !state.grouped;
      waveInput.max = n * n;
      prevBtn.disabled = state.index === 0;
      nextBtn.disabled = state.index === waves - 1;
      el.setAttribute("data-wave", String(state.index));

      out["wave-index"].textContent = state.index + 1;
      out.waves.textContent = waves;
      out["first-pid"].textContent = first;
      out["last-pid"].textContent = last;
      out.programs.textContent = cur.chunk.length;
      out["group-m"].textContent = g;
      out.rows.textContent = cur.rows.size;
      out.cols.textContent = cur.cols.size;
      out.k.textContent = n;
      out["a-loads"].textContent = n * cur.rows.size;
      out["b-loads"].textContent = n * cur.cols.size;
      out.loads.textContent = n * (cur.rows.size + cur.cols.size);
      out.unshared.textContent = cur.chunk.length * 2 * n;
      out["total-a"].textContent = total[0];
      out["total-b"].textContent = total[1];
      out.total.textContent = total[0] + total[1];

      // The grid: a corner, the column heads n, then per row its head m and its tiles.
      const pidAt = [];
      order.forEach(function (t, pid) {
        pidAt[t[0] * n + t[1]] = pid;
      });
      grid.textContent = "";
      grid.style.setProperty("--book-tiles", n);
      grid.appendChild(h("span", { class: "book-widget__tile-head", text: "m\\n" }));
      for (let c = 0; c < n; c++) {
        grid.appendChild(h("span", { class: "book-widget__tile-head" + (cur.cols.has(c) ? " book-widget__tile-head--used" : ""), text: String(c) }));
      }
      for (let r = 0; r < n; r++) {
        grid.appendChild(h("span", { class: "book-widget__tile-head" + (cur.rows.has(r) ? " book-widget__tile-head--used" : ""), text: String(r) }));
        for (let c = 0; c < n; c++) {
          const pid = pidAt[r * n + c];
          let kind = "";
          if (pid >= first && pid <= last) kind = " book-widget__tile--wave";
          else if (pid < first) kind = " book-widget__tile--done";
          grid.appendChild(h("span", { class: "book-widget__tile" + kind, "data-pid": pid, text: String(pid) }));
        }
      }
      grid.setAttribute("aria-label", n + " × " + n + " output tiles in " +
        (state.grouped ? "grouped order, GROUP_M = " + g : "row-major order") + "; wave " +
        (state.index + 1) + " runs programs " + first + " to " + last + ", covering tile rows " +
        Array.from(cur.rows).sort(function (x, y) { return x - y; }).join(", ") + " and tile columns " +
        Array.from(cur.cols).sort(function (x, y) { return x - y; }).join(", "));
    }

    function stop() {
      if (timer !== null) {
        clearInterval(timer);
        timer = null;
      }
      playBtn.textContent = "Play";
    }

    function keepFocus() {
      if (document.activeElement === nextBtn && nextBtn.disabled) prevBtn.focus();
      else if (document.activeElement === prevBtn && prevBtn.disabled) nextBtn.focus();
    }

    function move(d) {
      state.index = Math.max(0, state.index + d);
      render();
      keepFocus();
    }

    function restart() {
      stop();
      state.index = 0;
      render();
    }

    sideInput.addEventListener("input", function () {
      const v = readInt(sideInput, SIDE_MIN, SIDE_MAX);
      if (v === null) return;
      state.side = v;
      if (state.wave > v * v) {
        state.wave = v * v;
        waveInput.value = state.wave;
      }
      restart();
    });
    sideInput.addEventListener("change", function () {
      if (readInt(sideInput, SIDE_MIN, SIDE_MAX) === null) sideInput.value = state.side;
    });
    orderSelect.addEventListener("change", function () {
      state.grouped = orderSelect.value === "grouped";
      restart();
    });
    groupInput.addEventListener("input", function () {
      const v = readInt(groupInput, GROUP_MIN, GROUP_MAX);
      if (v === null) return;
      state.groupM = v;
      restart();
    });
    groupInput.addEventListener("change", function () {
      if (readInt(groupInput, GROUP_MIN, GROUP_MAX) === null) groupInput.value = state.groupM;
    });
    waveInput.addEventListener("input", function () {
      const v = readInt(waveInput, 1, state.side * state.side);
      if (v === null) return;
      state.wave = v;
      restart();
    });
    waveInput.addEventListener("change", function () {
      if (readInt(waveInput, 1, state.side * state.side) === null) waveInput.value = state.wave;
    });

    prevBtn.addEventListener("click", function () {
      stop();
      move(-1);
    });
    nextBtn.addEventListener("click", function () {
      stop();
      move(1);
    });
    // Play steps one wave a second until the last; it never starts by itself, and under
    // prefers-reduced-motion the tiles change without a transition (see book.css).
    playBtn.addEventListener("click", function () {
      if (timer !== null) {
        stop();
        return;
      }
      if (nextBtn.disabled) {
        state.index = 0;
        render();
      }
      playBtn.textContent = "Pause";
      timer = setInterval(function () {
        if (nextBtn.disabled) {
          stop();
          return;
        }
        move(1);
        if (nextBtn.disabled) stop();
      }, PLAY_MS);
    });
    if (reduceMotion) el.setAttribute("data-reduced-motion", "true");

    render();
  });
})();
