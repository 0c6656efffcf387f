#include "html_calculator.hpp"

#include "hardware.hpp"
#include "html_text.hpp"

#include <fmt/format.h>

namespace roofline {

namespace {

nlohmann::json ceiling_set(const HardwareProfile& profile, const MeasuredCeilings* measured) {
    nlohmann::json peaks = nlohmann::json::object(), origins = nlohmann::json::object();
    double bandwidth = profile.memory.bandwidth_tbs;
    double launch_overhead_s = kTypicalLaunchOverheadS;
    std::string bandwidth_origin = "datasheet";
    for (auto dtype : all_dtypes) {
        if (!profile.supports(dtype)) continue;
        auto choice = choose_ceiling(profile, measured, dtype);
        peaks[std::string(dtype_name(dtype))] = choice.ceiling.peak_tflops;
        origins[std::string(dtype_name(dtype))] = choice.peak_origin;
        bandwidth = choice.ceiling.bandwidth_tbs;
        bandwidth_origin = choice.bandwidth_origin;
        if (measured) launch_overhead_s = choice.launch_overhead_s;
    }
    return {{"bandwidth_tbs", bandwidth}, {"bandwidth_origin", bandwidth_origin},
            {"launch_overhead_s", launch_overhead_s}, {"peak_tflops", peaks}, {"peak_origin", origins}};
}

// The script: the model once, then the page around it. Kept in step with the
// families' models (problems/gemm/model.hpp and problems/elementwise/model.hpp:
// work_of) and roofline.cpp (analyze, gemm_crossover_n) operation by operation,
// so both give the same doubles.
constexpr const char* kScript = R"js(
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("calc-data").textContent);
  function $(id) { return document.getElementById(id); }

  // ---- the model (the families' work_of, roofline.cpp) ----
  function gemmWorkload(m, n, k, bytesPer) {
    return { flops: 2.0 * m * n * k, bytes: (m * k + k * n + m * n) * bytesPer };
  }
  function elementwiseWorkload(n, reads, writes, flopsPer, bytesPer) {
    return { flops: n * flopsPer, bytes: n * (reads + writes) * bytesPer };
  }
  function analyze(work, ceiling, launchOverheadS) {
    var peak = ceiling.peak_tflops * 1e12, bandwidth = ceiling.bandwidth_tbs * 1e12, p = {};
    p.intensity = work.bytes > 0 ? work.flops / work.bytes : Infinity;
    p.ridge = peak / bandwidth;
    p.compute_floor_s = work.flops / peak;
    p.memory_floor_s = work.bytes / bandwidth;
    // The time floor, as `roofline calc` and `classify` count it: the larger roofline floor, and
    // at least one launch (roofline.hpp, time_floor_s).
    p.roofline_floor_s = Math.max(p.compute_floor_s, p.memory_floor_s);
    p.floor_s = Math.max(p.roofline_floor_s, launchOverheadS > 0 ? launchOverheadS : 0);
    p.attainable_tflops = Math.min(peak, bandwidth * p.intensity) / 1e12;
    p.regime = p.intensity >= p.ridge ? "compute" : "memory";
    if (launchOverheadS > 0 && p.roofline_floor_s < launchOverheadS) p.regime = "overhead";
    return p;
  }
  // The FP8 switch (lesson 07, `roofline calc`'s "bf16 -> fp8" line): fp16 and bf16 switch to
  // fp8, fp8 back to bf16; other formats have no partner.
  function switchPartner(dtype) {
    if (dtype === "fp16" || dtype === "bf16") return "fp8";
    if (dtype === "fp8") return "bf16";
    return null;
  }
  function gemmCrossoverN(ceiling, bytesPer) {
    var ridge = ceiling.peak_tflops / ceiling.bandwidth_tbs;
    return Math.ceil(1.5 * bytesPer * ridge);
  }

  // ---- formatting (units.cpp) ----
  function g(v, digits) { return Number(v.toPrecision(digits)).toString(); }
  function seconds(s) {
    if (s < 1e-6) return g(s * 1e9, 3) + " ns";
    if (s < 1e-3) return g(s * 1e6, 4) + " us";
    if (s < 1) return g(s * 1e3, 4) + " ms";
    return g(s, 4) + " s";
  }
  function si(v, unit) {
    var prefixes = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < prefixes.length; i++) if (Math.abs(v) >= prefixes[i][0]) return g(v / prefixes[i][0], 4) + " " + prefixes[i][1] + unit;
    return g(v, 4) + " " + unit;
  }

  // ---- inputs: the URL fragment and the controls ----
  var state = { hw: data.default_profile, ceilings: "datasheet", dtype: "bf16", mode: "square",
                n: 4096, gemm: "4096,4096,4096", elementwise: 268435456, reads: 1, writes: 1, flops: 0 };
  function profile(id) {
    for (var i = 0; i < data.profiles.length; i++) if (data.profiles[i].id === id) return data.profiles[i];
    return null;
  }
  function bytesOf(dtype) {
    for (var i = 0; i < data.dtypes.length; i++) if (data.dtypes[i].name === dtype) return data.dtypes[i].bytes;
    return null;
  }
  function readFragment() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    // The CLI's names (`roofline calc --hardware ... --flops-per-element ...`); hw= and flops=
    // from links made before are still read.
    if (params.has("hw")) state.hw = params.get("hw");
    if (params.has("hardware")) state.hw = params.get("hardware");
    ["ceilings", "dtype"].forEach(function (key) { if (params.has(key)) state[key] = params.get(key); });
    ["reads", "writes"].forEach(function (key) { if (params.has(key)) state[key] = Number(params.get(key)); });
    if (params.has("flops")) state.flops = Number(params.get("flops"));
    if (params.has("flops-per-element")) state.flops = Number(params.get("flops-per-element"));
    if (params.has("n")) { state.mode = "square"; state.n = Number(params.get("n")); }
    if (params.has("gemm")) { state.mode = "gemm"; state.gemm = params.get("gemm"); }
    if (params.has("elementwise")) { state.mode = "elementwise"; state.elementwise = Number(params.get("elementwise")); }
  }
  function writeFragment() {
    var params = new URLSearchParams();
    params.set("hardware", state.hw);
    params.set("dtype", state.dtype);
    if (state.ceilings !== "datasheet") params.set("ceilings", state.ceilings);
    if (state.mode === "square") params.set("n", state.n);
    if (state.mode === "gemm") params.set("gemm", state.gemm);
    if (state.mode === "elementwise") {
      params.set("elementwise", state.elementwise);
      params.set("reads", state.reads); params.set("writes", state.writes); params.set("flops-per-element", state.flops);
    }
    try { history.replaceState(null, "", "#" + params.toString()); } catch (e) { /* file:// in some browsers */ }
  }
  function showControls() {
    $("calc-hw").value = state.hw;
    var p = profile(state.hw), select = $("calc-ceilings");
    select.textContent = "";
    var sets = p ? Object.keys(p.ceilings) : ["datasheet"];
    sets.forEach(function (name) {
      var option = document.createElement("option");
      option.value = name;
      option.textContent = name === "datasheet" ? "datasheet" : "measured on this machine (" + p.ceilings[name].when + ")";
      select.appendChild(option);
    });
    select.value = sets.indexOf(state.ceilings) >= 0 ? state.ceilings : "datasheet";
    $("calc-dtype").value = state.dtype;
    ["square", "gemm", "elementwise"].forEach(function (mode) {
      $("calc-mode-" + mode).checked = state.mode === mode;
      $("calc-inputs-" + mode).hidden = state.mode !== mode;
    });
    $("calc-n").value = state.n;
    if (state.n > 0) $("calc-n-slider").value = Math.round(100 * Math.log2(state.n));
    $("calc-gemm").value = state.gemm;
    $("calc-elements").value = state.elementwise;
    $("calc-reads").value = state.reads;
    $("calc-writes").value = state.writes;
    $("calc-flops-per").value = state.flops;
  }
  function readControls() {
    state.hw = $("calc-hw").value;
    state.ceilings = $("calc-ceilings").value || "datasheet";
    state.dtype = $("calc-dtype").value;
    ["square", "gemm", "elementwise"].forEach(function (mode) { if ($("calc-mode-" + mode).checked) state.mode = mode; });
    state.n = Number($("calc-n").value);
    state.gemm = $("calc-gemm").value;
    state.elementwise = Number($("calc-elements").value);
    state.reads = Number($("calc-reads").value);
    state.writes = Number($("calc-writes").value);
    state.flops = Number($("calc-flops-per").value);
  }

  // ---- outputs ----
  var figures = ["flops", "bytes", "intensity", "ridge", "compute-floor", "memory-floor", "floor", "attainable",
                 "peak", "bandwidth", "regime", "crossover", "switch"];
  function put(name, value, text) {
    var cell = $("calc-" + name);
    cell.setAttribute("data-value", value === null ? "" : String(value));
    cell.textContent = text;
  }
  function clear(message) {
    figures.forEach(function (name) { put(name, null, "-"); });
    $("calc-error").textContent = message;
    $("calc-summary").textContent = message;
    $("calc-bar-compute").style.width = "0";
    $("calc-bar-memory").style.width = "0";
    $("calc-bar-compute-text").textContent = "-";
    $("calc-bar-memory-text").textContent = "-";
    $("calc-chart").textContent = "";
  }
  function positive(v) { return typeof v === "number" && isFinite(v) && v > 0; }

  function workload(bytesPer) {
    if (state.mode === "square") {
      if (!positive(state.n)) return { error: "N must be a positive number" };
      return { work: gemmWorkload(state.n, state.n, state.n, bytesPer), gemm: true,
               label: "GEMM " + state.n + " x " + state.n + " x " + state.n };
    }
    if (state.mode === "gemm") {
      var dims = String(state.gemm).split(",").map(Number);
      if (dims.length === 1) dims = [dims[0], dims[0], dims[0]];
      if (dims.length !== 3 || !dims.every(positive)) return { error: "M,N,K must be three positive numbers, e.g. 1,8192,8192" };
      return { work: gemmWorkload(dims[0], dims[1], dims[2], bytesPer), gemm: true,
               label: "GEMM " + dims.join(" x ") + " (M x N x K)" };
    }
    if (!positive(state.elementwise)) return { error: "the element count must be a positive number" };
    if (!(state.reads >= 0 && state.writes >= 0 && state.reads + state.writes > 0 && state.flops >= 0))
      return { error: "reads and writes must be >= 0 with at least one access; FLOPs per element >= 0" };
    return { work: elementwiseWorkload(state.elementwise, state.reads, state.writes, state.flops, bytesPer), gemm: false,
             label: "elementwise, " + state.elementwise + " elements, " + state.reads + " reads + " + state.writes + " writes each" };
  }

  function update() {
    $("calc-error").textContent = "";
    var p = profile(state.hw);
    if (!p) return clear("no GPU profile '" + state.hw + "'; pick one from the list");
    var set = p.ceilings[state.ceilings] || p.ceilings.datasheet;
    var bytesPer = bytesOf(state.dtype);
    if (bytesPer === null) return clear("unknown dtype '" + state.dtype + "'");
    $("calc-status").setAttribute("data-supported", String(state.dtype in set.peak_tflops));
    if (!(state.dtype in set.peak_tflops)) {
      clear("no " + state.dtype + " unit on " + p.name + ": pick another dtype or GPU");
      return;
    }
    var w = workload(bytesPer);
    if (w.error) return clear(w.error);
    var ceiling = { peak_tflops: set.peak_tflops[state.dtype], bandwidth_tbs: set.bandwidth_tbs };
    var r = analyze(w.work, ceiling, set.launch_overhead_s);
    put("flops", w.work.flops, si(w.work.flops, "FLOP"));
    put("bytes", w.work.bytes, si(w.work.bytes, "B"));
    put("intensity", r.intensity, g(r.intensity, 4) + " FLOP/byte");
    put("ridge", r.ridge, g(r.ridge, 4) + " FLOP/byte");
    put("compute-floor", r.compute_floor_s, seconds(r.compute_floor_s));
    put("memory-floor", r.memory_floor_s, seconds(r.memory_floor_s));
    put("floor", r.floor_s, seconds(r.floor_s));
    put("attainable", r.attainable_tflops, g(r.attainable_tflops, 4) + " TFLOP/s (" +
        g(100 * r.attainable_tflops / ceiling.peak_tflops, 3) + "% of peak)");
    put("peak", ceiling.peak_tflops, g(ceiling.peak_tflops, 5) + " TFLOP/s " + state.dtype + " dense (" + set.peak_origin[state.dtype] + ")");
    put("bandwidth", ceiling.bandwidth_tbs, g(ceiling.bandwidth_tbs, 4) + " TB/s (" + set.bandwidth_origin + ")");
    var why = r.regime === "overhead" ? "both floors under the ~" + g(set.launch_overhead_s * 1e6, 3) + " us cost of one launch"
                                      : "intensity " + g(r.intensity / r.ridge, 2) + "x the ridge";
    put("regime", r.regime, r.regime + "-bound (" + why + ")");
    if (w.gemm) {
      var crossover = gemmCrossoverN(ceiling, bytesPer);
      put("crossover", crossover, "square " + state.dtype + " GEMMs with N below " + crossover + " are memory-bound here");
    } else {
      put("crossover", null, "- (GEMMs only)");
    }
    // The switch: the other format's roof on the same part, the same point (same bytes) under it,
    // and the same work counted in the other format's bytes.
    var partner = switchPartner(state.dtype), sw = null;
    if (partner && (partner in set.peak_tflops)) {
      var other = { peak_tflops: set.peak_tflops[partner], bandwidth_tbs: set.bandwidth_tbs };
      sw = { dtype: partner, ceiling: other, same: analyze(w.work, other, set.launch_overhead_s),
             own: analyze(workload(bytesOf(partner)).work, other, set.launch_overhead_s) };
      put("switch", sw.same.ridge,  // the other format's ridge: `roofline calc --json`'s dtype_switch has it
          partner + " on this part: compute roof " + g(other.peak_tflops, 5) + " TFLOP/s (" +
          g(other.peak_tflops / ceiling.peak_tflops, 3) + "x), ridge " + g(sw.same.ridge, 4) + " FLOP/byte (" +
          g(sw.same.ridge / r.ridge, 3) + "x). This point under it: " + g(r.intensity / sw.same.ridge, 2) +
          "x its ridge, " + sw.same.regime + "-bound. The same work in " + partner + " bytes: " +
          g(sw.own.intensity, 4) + " FLOP/byte, " + g(sw.own.intensity / sw.own.ridge, 2) + "x its ridge, " +
          sw.own.regime + "-bound, at least " + seconds(sw.own.floor_s));
    } else if (partner) {
      put("switch", null, "- (no " + partner + " unit on " + p.name + ")");
    } else {
      put("switch", null, "- (fp16, bf16 and fp8 only: the tensor formats the switch is between)");
    }
    $("calc-summary").textContent = w.label + ", " + state.dtype + " on " + p.name + ": " + r.regime + "-bound, at least " + seconds(r.floor_s);
    var longest = Math.max(r.compute_floor_s, r.memory_floor_s);
    $("calc-bar-compute").style.width = (longest > 0 ? 100 * r.compute_floor_s / longest : 0) + "%";
    $("calc-bar-memory").style.width = (longest > 0 ? 100 * r.memory_floor_s / longest : 0) + "%";
    $("calc-bar-compute-text").textContent = seconds(r.compute_floor_s);
    $("calc-bar-memory-text").textContent = seconds(r.memory_floor_s);
    drawChart(ceiling, r, sw);
  }

  // ---- the roofline chart: attainable TFLOP/s against intensity, log-log ----
  var SVG = $("calc-chart").namespaceURI;  // the inline <svg>'s own namespace
  function el(name, attributes, text) {
    var node = document.createElementNS(SVG, name);
    for (var key in attributes) node.setAttribute(key, attributes[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function drawChart(ceiling, r, sw) {
    var svg = $("calc-chart");
    svg.textContent = "";
    var W = 640, H = 380, left = 70, right = 610, top = 20, bottom = 320;
    var ridge = r.ridge, zeroIntensity = !(r.intensity > 0);
    var xs = zeroIntensity ? [ridge] : [r.intensity, ridge];
    if (sw) xs.push(sw.same.ridge);
    if (sw && sw.own.intensity > 0) xs.push(sw.own.intensity);
    var xlo = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, xs) / 3)));
    var xhi = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, xs) * 3)));
    var yhi = Math.pow(10, Math.ceil(Math.log10(Math.max(ceiling.peak_tflops, sw ? sw.ceiling.peak_tflops : 0) * 1.5)));
    var ylo = Math.pow(10, Math.floor(Math.log10(ceiling.bandwidth_tbs * xlo)));
    function X(v) { return left + (Math.log10(v) - Math.log10(xlo)) / (Math.log10(xhi) - Math.log10(xlo)) * (right - left); }
    function Y(v) { return bottom - (Math.log10(v) - Math.log10(ylo)) / (Math.log10(yhi) - Math.log10(ylo)) * (bottom - top); }
    svg.appendChild(el("rect", { x: left, y: top, width: right - left, height: bottom - top, fill: "none", stroke: "#444" }));
    for (var d = xlo; d <= xhi * 1.0001; d *= 10) {
      svg.appendChild(el("line", { x1: X(d), y1: top, x2: X(d), y2: bottom, stroke: "#ddd" }));
      svg.appendChild(el("text", { x: X(d), y: bottom + 16, "text-anchor": "middle", "font-size": 12 }, g(d, 3)));
    }
    for (var t = ylo; t <= yhi * 1.0001; t *= 10) {
      svg.appendChild(el("line", { x1: left, y1: Y(t), x2: right, y2: Y(t), stroke: "#ddd" }));
      svg.appendChild(el("text", { x: left - 6, y: Y(t) + 4, "text-anchor": "end", "font-size": 12 }, g(t, 3)));
    }
    svg.appendChild(el("text", { x: (left + right) / 2, y: bottom + 36, "text-anchor": "middle", "font-size": 12 },
                       "arithmetic intensity (FLOP/byte)"));
    svg.appendChild(el("text", { x: 16, y: (top + bottom) / 2, "text-anchor": "middle", "font-size": 12,
                                 transform: "rotate(-90 16 " + (top + bottom) / 2 + ")" }, "attainable TFLOP/s"));
    var roof = [[xlo, ceiling.bandwidth_tbs * xlo], [ridge, ceiling.peak_tflops], [xhi, ceiling.peak_tflops]];
    svg.appendChild(el("polyline", { points: roof.map(function (q) { return X(q[0]) + "," + Y(q[1]); }).join(" "),
                                     fill: "none", stroke: "black", "stroke-width": 2, "class": "roof" }));
    svg.appendChild(el("line", { x1: X(ridge), y1: top, x2: X(ridge), y2: bottom, stroke: "#666", "stroke-dasharray": "5,4" }));
    svg.appendChild(el("text", { x: X(ridge) + 4, y: top + 14, "font-size": 11 }, "ridge " + g(ridge, 3) + " FLOP/B"));
    svg.appendChild(el("text", { x: left + 6, y: Y(ceiling.bandwidth_tbs * xlo) - 8, "font-size": 11 },
                       "memory roof " + g(ceiling.bandwidth_tbs, 3) + " TB/s"));
    svg.appendChild(el("text", { x: X(ridge) - 6, y: Y(ceiling.peak_tflops) - 8, "text-anchor": "end", "font-size": 11 },
                       "compute roof " + g(ceiling.peak_tflops, 4) + " TFLOP/s"));
    if (sw) {
      // The other format's roof, dashed, with its ridge; then where this point lands under it
      // (a square: same intensity) and the same work in that format's bytes (a diamond).
      var other = sw.ceiling, otherRidge = sw.same.ridge;
      var otherRoof = [[xlo, other.bandwidth_tbs * xlo], [otherRidge, other.peak_tflops], [xhi, other.peak_tflops]];
      svg.appendChild(el("polyline", { points: otherRoof.map(function (q) { return X(q[0]) + "," + Y(q[1]); }).join(" "),
                                       fill: "none", stroke: "#1f6fb2", "stroke-width": 2, "stroke-dasharray": "8,5",
                                       "class": "roof partner-roof", "data-dtype": sw.dtype }));
      svg.appendChild(el("line", { x1: X(otherRidge), y1: top, x2: X(otherRidge), y2: bottom, stroke: "#1f6fb2",
                                   "stroke-dasharray": "2,4", "class": "partner-ridge" }));
      svg.appendChild(el("text", { x: X(otherRidge) + 4, y: top + 28, "font-size": 11, fill: "#1f6fb2" },
                         sw.dtype + " ridge " + g(otherRidge, 3) + " FLOP/B"));
      svg.appendChild(el("text", { x: X(otherRidge) - 6, y: Y(other.peak_tflops) - 8, "text-anchor": "end",
                                   "font-size": 11, fill: "#1f6fb2" },
                         sw.dtype + " compute roof " + g(other.peak_tflops, 4) + " TFLOP/s"));
      if (!zeroIntensity) {
        var sx = X(Math.min(Math.max(r.intensity, xlo), xhi)), sy = Y(Math.max(sw.same.attainable_tflops, ylo));
        var same = el("rect", { x: sx - 6, y: sy - 6, width: 12, height: 12, fill: "white", stroke: "#1f6fb2",
                                "stroke-width": 2, "class": "same-point" });
        same.appendChild(el("title", {}, "this point under the " + sw.dtype + " roof: " + g(r.intensity, 4) +
                            " FLOP/byte, " + g(sw.same.attainable_tflops, 4) + " TFLOP/s attainable, " + sw.same.regime + "-bound"));
        svg.appendChild(same);
      }
      if (sw.own.intensity > 0) {
        var ox = X(Math.min(Math.max(sw.own.intensity, xlo), xhi)), oy = Y(Math.max(sw.own.attainable_tflops, ylo));
        var own = el("path", { d: "M" + ox + "," + (oy - 8) + " l8,8 l-8,8 l-8,-8 z", fill: "#1f6fb2",
                               "class": "partner-point" });
        own.appendChild(el("title", {}, "the same work in " + sw.dtype + " bytes: " + g(sw.own.intensity, 4) +
                           " FLOP/byte, " + g(sw.own.attainable_tflops, 4) + " TFLOP/s attainable, " + sw.own.regime + "-bound"));
        svg.appendChild(own);
      }
    }
    var px = zeroIntensity ? left : X(Math.min(Math.max(r.intensity, xlo), xhi));
    var py = zeroIntensity ? bottom : Y(Math.max(r.attainable_tflops, ylo));
    var point = el("circle", { cx: px, cy: py, r: 7, fill: "white", stroke: "black", "stroke-width": 3, "class": "point" });
    point.appendChild(el("title", {}, (zeroIntensity ? "0 FLOP/byte" : g(r.intensity, 4) + " FLOP/byte") + ", " +
                         g(r.attainable_tflops, 4) + " TFLOP/s attainable, " + r.regime + "-bound"));
    svg.appendChild(point);
    var labelLeft = px > (left + right) / 2;  // keep the label inside the plot
    svg.appendChild(el("text", { x: labelLeft ? px - 10 : px + 10, y: py + 24, "font-size": 12, "font-weight": "bold",
                                 "text-anchor": labelLeft ? "end" : "start" },
                       zeroIntensity ? "this workload (0 FLOP/byte: the memory floor alone)" : "this workload (" + r.regime + ")"));
  }

  // ---- wiring ----
  function changed() { readControls(); writeFragment(); update(); }
  ["calc-hw", "calc-ceilings", "calc-dtype", "calc-n", "calc-gemm", "calc-elements", "calc-reads", "calc-writes",
   "calc-flops-per", "calc-mode-square", "calc-mode-gemm", "calc-mode-elementwise"].forEach(function (id) {
    // A box being typed in is not written back: clearing N to type another would put 0 in it at once.
    var typed = $(id).tagName === "INPUT" && $(id).type !== "radio";
    $(id).addEventListener("input", function () {
      changed();
      if (!typed) showControls();
      else if (id === "calc-n" && state.n > 0) $("calc-n-slider").value = Math.round(100 * Math.log2(state.n));
    });
  });
  $("calc-n-slider").addEventListener("input", function () {
    $("calc-n").value = Math.round(Math.pow(2, Number($("calc-n-slider").value) / 100));
    changed();
  });
  window.addEventListener("hashchange", function () { readFragment(); showControls(); update(); });
  readFragment();
  showControls();
  update();
  document.body.setAttribute("data-calculator-ready", "1");
})();
)js";

}  // namespace

nlohmann::json calculator_data(const Workspace& ws) {
    nlohmann::json dtypes = nlohmann::json::array();
    for (auto dtype : all_dtypes) dtypes.push_back({{"name", dtype_name(dtype)}, {"bytes", dtype_bytes(dtype)}});
    nlohmann::json profiles = nlohmann::json::array();
    for (const auto& p : load_profiles(ws.root / "hardware")) {
        nlohmann::json sources = nlohmann::json::object();
        sources["memory"] = p.memory.source;
        for (const auto& [dtype, figure] : p.peak) sources[std::string(dtype_name(dtype))] = figure.source;
        nlohmann::json ceilings = {{"datasheet", ceiling_set(p, nullptr)}};
        auto measured_file = ws.measured_ceilings(p.id);
        if (std::filesystem::exists(measured_file)) {
            auto measured = load_measured(measured_file);
            ceilings["measured"] = ceiling_set(p, &measured);
            ceilings["measured"]["when"] = measured.measured_at;
            ceilings["measured"]["device"] = measured.device_name;
        }
        profiles.push_back({{"id", p.id}, {"name", p.name}, {"architecture", p.architecture},
                            {"memory", fmt::format("{} {:g} GB", p.memory.kind, p.memory.capacity_gb)},
                            {"ceilings", ceilings}, {"sources", sources}});
    }
    // The course's reference GPU first, where the course ships its profile.
    std::string first = profiles.empty() ? "" : profiles[0]["id"].get<std::string>();
    for (const auto& p : profiles) {
        if (p["id"] == "h200-sxm") first = "h200-sxm";
    }
    return {{"launch_overhead_s", kTypicalLaunchOverheadS}, {"dtypes", dtypes}, {"profiles", profiles},
            {"default_profile", first}};
}

std::string calculator_section(const nlohmann::json& data) {
    std::string hw_options, dtype_options, sources;
    for (const auto& p : data["profiles"]) {
        auto id = p["id"].get<std::string>();
        hw_options += fmt::format("<option value=\"{}\">{} ({})</option>", html_escape(id),
                                  html_escape(p["name"].get<std::string>()), html_escape(id));
        std::string rows;
        for (const auto& [what, source] : p["sources"].items()) {
            rows += fmt::format("<li>{}: {}</li>", html_escape(what), html_escape(source.get<std::string>()));
        }
        sources += fmt::format("<li><b>{}</b><ul>{}</ul></li>", html_escape(p["name"].get<std::string>()), rows);
    }
    for (const auto& d : data["dtypes"]) {
        auto name = html_escape(d["name"].get<std::string>());
        dtype_options += fmt::format("<option value=\"{0}\">{0} ({1:g} bytes)</option>", name, d["bytes"].get<double>());
    }
    std::string figures;
    auto row = [&](const char* id, const char* what) {
        figures += fmt::format("<tr><th scope=\"row\">{}</th><td id=\"calc-{}\" data-value=\"\">-</td></tr>\n", what, id);
    };
    row("flops", "FLOPs");
    row("bytes", "bytes (each input read once, each output written once)");
    row("intensity", "arithmetic intensity");
    row("ridge", "ridge point (peak / bandwidth)");
    row("peak", "compute roof");
    row("bandwidth", "memory roof");
    row("compute-floor", "compute floor (FLOPs / peak)");
    row("memory-floor", "memory floor (bytes / bandwidth)");
    row("floor", "time floor (the larger floor, and at least one launch)");
    row("attainable", "attainable rate");
    row("regime", "regime");
    row("crossover", "crossover N (square GEMM)");
    row("switch", "the FP8 switch (fp16/bf16 and fp8 on this GPU)");
    return fmt::format(R"html(
<section id="calculator" aria-labelledby="calculator-title">
<h2 id="calculator-title">The roofline calculator</h2>
<p>Pick a GPU, a number format and a workload. The two bars are the two time floors: the arithmetic at the
peak rate, and the bytes at the memory bandwidth. The larger one is the fastest the kernel can run; which one
it is names the regime. Slide N down and watch a compute-bound GEMM tip over into memory-bound. Switch the
dtype from bf16 to fp8 and watch the ridge move right (try
<a href="#hardware=h200-sxm&amp;dtype=bf16&amp;gemm=256,8192,8192">a 256-token GEMM in bf16 on the H200</a>).
The same figures as <code>roofline calc</code> (add <code>--json</code> for all of them).</p>
<form class="controls" onsubmit="return false">
<label>GPU <select id="calc-hw">{hw}</select></label>
<label>ceilings <select id="calc-ceilings"><option value="datasheet">datasheet</option></select></label>
<label>dtype <select id="calc-dtype">{dtypes}</select></label>
</form>
<fieldset><legend>workload</legend>
<div class="controls">
<label><input type="radio" name="calc-mode" id="calc-mode-square" value="square"> square GEMM</label>
<label><input type="radio" name="calc-mode" id="calc-mode-gemm" value="gemm"> GEMM M,N,K</label>
<label><input type="radio" name="calc-mode" id="calc-mode-elementwise" value="elementwise"> elementwise</label>
</div>
<div id="calc-inputs-square" class="controls">
<label for="calc-n-slider">N (log scale, 16 to 65536)</label>
<input type="range" id="calc-n-slider" min="400" max="1600" step="1" aria-label="N, log scale">
<label>N <input type="number" id="calc-n" min="1" step="1"></label>
</div>
<div id="calc-inputs-gemm" class="controls" hidden>
<label>M,N,K <input type="text" id="calc-gemm" inputmode="numeric" size="22"></label>
</div>
<div id="calc-inputs-elementwise" class="controls" hidden>
<label>elements <input type="number" id="calc-elements" min="1"></label>
<label>reads each <input type="number" id="calc-reads" min="0"></label>
<label>writes each <input type="number" id="calc-writes" min="0"></label>
<label>FLOPs each <input type="number" id="calc-flops-per" min="0"></label>
</div>
</fieldset>
<p id="calc-error" class="error" role="alert"></p>
<p id="calc-status" data-supported=""><output id="calc-summary" aria-live="polite"></output></p>
<div class="bar-row"><span>compute</span><div class="bar-track"><div id="calc-bar-compute" class="bar compute"></div></div><span id="calc-bar-compute-text">-</span></div>
<div class="bar-row"><span>memory</span><div class="bar-track"><div id="calc-bar-memory" class="bar memory"></div></div><span id="calc-bar-memory-text">-</span></div>
<p class="note">Solid bar: the compute floor. Hatched bar: the memory floor. Under about 5 us both are hidden
behind the cost of a launch: the regime is then overhead.</p>
<figure><svg id="calc-chart" viewBox="0 0 640 380" role="img" aria-label="the roofline with this workload's point"></svg>
<figcaption>The roofline of the chosen GPU and dtype: the memory roof rises with intensity until the ridge,
then the compute roof is flat. The ring is this workload. For fp16, bf16 and fp8 the dashed blue roof is the
other side of the FP8 switch on the same GPU: fp8's compute roof is twice the 16-bit one on Hopper, over the
same memory roof, so its ridge sits twice as far right. The square is this point under that roof (the same
bytes); the diamond is the same work with its operands in the other format's bytes.</figcaption></figure>
<div class="table-wrap"><table id="calc-table"><caption>The figures</caption>
<tbody>
{figures}</tbody></table></div>
<details><summary>Where the ceilings come from</summary><ul>{sources}</ul></details>
<script type="application/json" id="calc-data">{data}</script>
<script>{script}</script>
</section>
)html",
                       fmt::arg("hw", hw_options), fmt::arg("dtypes", dtype_options), fmt::arg("figures", figures),
                       fmt::arg("sources", sources), fmt::arg("data", script_json(data)), fmt::arg("script", kScript));
}

}  // namespace roofline
