/* Widget "predict" (the exercises of every lesson): commit to an answer, then see the truth
 * from the book's data, and why.
 *
 * The page writes the question, the choices and where the truth comes from; the answer is
 * never typed, it is computed in the browser from the numbers the build embeds (the same
 * numbers the prose's {{ value ... }} placeholders show):
 *
 *   <div class="book-widget" data-widget="predict" markdown
 *        data-question="With 4 warps, from which BLOCK on ...?"
 *        data-choices="32|64|128|256|512|1024"
 *        data-pick="at-least"
 *        data-values="vector_add.break_even_block"
 *        data-device="h100">
 *   The explanation, in Markdown, with {{ value ... }} placeholders: hidden until the
 *   reader has answered.
 *   </div>
 *
 * data-pick says how the truth picks the right answer:
 *   at-least  (choices are numbers; one value) the smallest choice >= the value
 *   nearest   (choices are numbers; one value) the choice nearest the value (ratio)
 *             (for both, data-numbers="0.01 0.1 1" gives each choice its number when the
 *             labels are words: "under 10 ms|10 to 100 ms|...")
 *   max / min (one value per choice, in order) the choice whose value is largest/smallest
 *   number    (no choices; one value) the reader types a number; right within
 *             data-tolerance (relative, default 0.25) of the value divided by data-scale
 *             (default 1), shown with data-unit
 * data-device is the data folder's slug or its start, "h100" (default: the first device
 * with the value).
 * Outputs carry data-out="verdict" and data-out="truth"; the element gets data-correct
 * ("true"/"false") once answered. Without the data on that device the widget says so and
 * still shows the explanation.
 */
(function () {
  "use strict";
  const W = window.BookWidgets;
  const h = W.h;
  let uid = 0;

  function value(key, slug) {
    const v = W.data().values[key];
    return v && slug in v ? v[slug] : null;
  }

  function fmt(v) {
    if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
    return String(Number(v.toPrecision(3)));
  }

  // The index of the right choice, or the number itself (pick "number"); null: no data.
  function truth(pick, choices, numbers, keys, slug) {
    const vals = keys.map(function (k) { return value(k, slug); });
    if (vals.some(function (v) { return v === null; })) return null;
    if (pick === "number") return vals[0];
    if (pick === "max" || pick === "min") {
      let best = 0;
      vals.forEach(function (v, i) {
        if (pick === "max" ? v > vals[best] : v < vals[best]) best = i;
      });
      return best;
    }
    const nums = numbers.length ? numbers : choices.map(Number);
    if (pick === "at-least") {
      let best = -1;
      nums.forEach(function (c, i) {
        if (c >= vals[0] && (best < 0 || c < nums[best])) best = i;
      });
      return best < 0 ? null : best;
    }
    if (pick === "nearest") {
      let best = 0;
      nums.forEach(function (c, i) {
        if (Math.abs(Math.log(c / vals[0])) < Math.abs(Math.log(nums[best] / vals[0]))) best = i;
      });
      return best;
    }
    throw new Error("predict: unknown data-pick " + pick);
  }

  W.register("predict", function mount(el) {
    const question = el.getAttribute("data-question") || "";
    const pick = el.getAttribute("data-pick") || "number";
    const choices = (el.getAttribute("data-choices") || "").split("|").filter(function (c) { return c.trim(); });
    const keys = (el.getAttribute("data-values") || "").split(/\s+/).filter(Boolean);
    const numbers = (el.getAttribute("data-numbers") || "").split(/\s+/).filter(Boolean).map(Number);
    const unit = el.getAttribute("data-unit") || "";
    const scale = parseFloat(el.getAttribute("data-scale") || "1");
    const tolerance = parseFloat(el.getAttribute("data-tolerance") || "0.25");
    const devices = W.data().devices;
    // A slug or its start ("h100" for "h100-80gb-hbm3"), as the prose's placeholders take it.
    const want = el.getAttribute("data-device") || "";
    const slug = Object.keys(devices).find(function (s) {
      return s.startsWith(want) && value(keys[0], s) !== null;
    }) || want;
    const gpu = devices[slug] || "this GPU";

    // What the page wrote inside the element is the explanation: hidden until answered.
    const explain = h("div", { class: "book-widget__explain", "data-out": "explain" });
    while (el.firstChild) explain.appendChild(el.firstChild);
    explain.hidden = true;

    const id = "book-predict-" + ++uid;
    const form = h("form", { class: "book-widget__predict" });
    const fieldset = h("fieldset", { class: "book-widget__choices" }, [
      h("legend", { text: question }),
    ]);
    let number = null;
    if (pick === "number") {
      number = h("input", { type: "number", step: "any", inputmode: "decimal", "data-in": "answer", id: id + "-n" });
      fieldset.appendChild(h("div", { class: "book-widget__field" }, [
        h("label", { for: id + "-n", text: "Your answer" + (unit ? " (" + unit + ")" : "") }), number,
      ]));
    } else {
      choices.forEach(function (c, i) {
        const input = h("input", { type: "radio", name: id, value: String(i), id: id + "-" + i, "data-in": "choice" });
        fieldset.appendChild(h("div", { class: "book-widget__choice" }, [
          input, h("label", { for: id + "-" + i, text: c }),
        ]));
      });
    }
    const button = h("button", { type: "submit", class: "book-widget__button", "data-in": "check", text: "Check my answer" });
    const verdict = h("p", { class: "book-widget__answer", "aria-live": "polite", "data-out": "verdict" });
    const truthOut = h("span", { "data-out": "truth" });
    form.appendChild(fieldset);
    form.appendChild(h("div", { class: "book-widget__buttons" }, [button]));

    el.appendChild(h("p", { class: "book-widget__title", text: "Predict, then check" }));
    el.appendChild(form);
    el.appendChild(verdict);
    el.appendChild(explain);

    function chosen() {
      if (number) {
        const v = parseFloat(number.value);
        return Number.isFinite(v) ? v : null;
      }
      const on = form.querySelector("input[type=radio]:checked");
      return on ? Number(on.value) : null;
    }

    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      const mine = chosen();
      verdict.textContent = "";
      if (mine === null) {
        verdict.textContent = number ? "Type a number first." : "Pick an answer first.";
        return;
      }
      const t = truth(pick, choices, numbers, keys, slug);
      let right;
      if (t === null) {
        verdict.textContent = "The book has no measurement of this on " + gpu + "; the explanation below says how to reason about it.";
        el.removeAttribute("data-correct");
      } else {
        let shown;
        if (number) {
          const want = t / scale;
          right = Math.abs(mine - want) <= tolerance * Math.abs(want);
          shown = fmt(want) + (unit ? " " + unit : "");
        } else {
          right = mine === t;
          shown = choices[t];
        }
        truthOut.textContent = shown;
        verdict.appendChild(document.createTextNode(right ? "Right: " : "Not this time. The answer is "));
        verdict.appendChild(truthOut);
        verdict.appendChild(document.createTextNode(" on our " + gpu + (right ? "." : " (you said " + (number ? fmt(mine) : choices[mine]) + ").")));
        el.setAttribute("data-correct", right ? "true" : "false");
      }
      explain.hidden = false;
      el.setAttribute("data-state", "revealed");
    });
  });
})();
