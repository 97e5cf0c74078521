/* chalktrace step mode, its data: unpacks data.js as tracer/site/pages/packed_data.py packed it.

   CHALKTRACE_STEP_DATA.unpack(data) turns data.packed back into what the viewer reads: the step
   columns (data.steps), each step's variables and clears (data.env, data.clear) and the snapshots
   (data.snapshots, rebuilt by the rule of viewer_data.py's _snapshots), all at once (a loop over
   the steps); and data.card(k), a value card's {html, summary}, decoded from its skeleton, the
   float32 stream and the words only when a step first shows it (then kept).
   The two number formats below are written twice, here and in packed_data.py (exact_text,
   rounded_text), and so are a card's mean and std of its first slots (statistic; _statistic):
   the packer keeps a number as a float hole, or a statistic, only where they give its very text.
   Must not: render anything of its own, or know what a card means. */
(function () {
  "use strict";
  var DIGITS64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  var DIGITS85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%()*+,-.:;=?@[]^_{}~";  // packed_data.py's
  var SNAPSHOT_EVERY = 16;  // viewer_data.py's SNAPSHOT_EVERY
  var PAD = "\u0001";       // where a segment's padding spaces go (packed_data.py's _PAD)
  var DIGIT_VALUE = new Int8Array(128);
  for (var d = 0; d < DIGITS64.length; d++) DIGIT_VALUE[DIGITS64.charCodeAt(d)] = d;
  var DIGIT85_VALUE = new Int8Array(128);
  for (d = 0; d < DIGITS85.length; d++) DIGIT85_VALUE[DIGITS85.charCodeAt(d)] = d;

  function codes(text, width, count) {
    var out = new Int32Array(count);
    for (var i = 0, at = 0; i < count; i++) {
      var value = 0;
      for (var k = 0; k < width; k++) value = value * 64 + DIGIT_VALUE[text.charCodeAt(at++)];
      out[i] = value;
    }
    return out;
  }

  // --- numbers: (sign, significant digits, exponent of the first) and their two ways of being written
  function positionalOrScientific(sign, digits, exponent, below, from, pointZero) {
    if (exponent >= below && exponent < from) {
      if (exponent >= 0) {
        var whole = digits.slice(0, exponent + 1), fraction = digits.slice(exponent + 1);
        while (whole.length < exponent + 1) whole += "0";
        if (!fraction) return sign + whole + (pointZero ? ".0" : "");
        return sign + whole + "." + fraction;
      }
      return sign + "0." + "0".repeat(-exponent - 1) + digits;
    }
    return sign + digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e" + (exponent < 0 ? "-" : "+") +
      Math.abs(exponent);
  }

  function exactText(n) { return positionalOrScientific(n[0], n[1], n[2], -4, 16, true); }

  function roundedText(n, significant) {
    var digits = n[1], exponent = n[2];
    if (digits.length > significant) {
      var kept = +digits.slice(0, significant) + (digits.charCodeAt(significant) >= 53 ? 1 : 0);  // "5"
      if (kept === Math.pow(10, significant)) { kept = Math.pow(10, significant - 1); exponent += 1; }
      digits = String(kept).replace(/0+$/, "") || "0";
    }
    if (digits === "0") return n[0] + "0";
    return positionalOrScientific(n[0], digits, exponent, -4, significant, false);
  }

  // A float32's shortest decimal: the first precision that reads back as it.
  function float32Number(f) {
    var sign = f < 0 ? "-" : "", m = Math.abs(f), text = "";
    for (var p = 1; p <= 9; p++) {
      text = m.toExponential(p - 1);
      if (Math.fround(+text) === m) break;
    }
    var e = text.indexOf("e");
    return [sign, text.slice(0, e).replace(".", "").replace(/0+$/, "") || "0", +text.slice(e + 1)];
  }

  // The float32 stream: 5 base-85 digits a number, most significant first, of its 32 bits, in planes
  // (every number's first digit, then every number's second digit, ...).
  function floats(text) {
    var count = text.length / 5, out = new Float32Array(count), bits = new Uint32Array(out.buffer);
    for (var i = 0; i < count; i++) {
      var value = 0;
      for (var k = 0; k < 5; k++) value = value * 85 + DIGIT85_VALUE[text.charCodeAt(k * count + i)];
      bits[i] = value;
    }
    return out;
  }

  // A statistic of a card's first n float slots, as packed_data.py's twin computes it (in doubles, in
  // this order, then rounded to float32): the packer uses one only where it gives the card's very number.
  function statistic(values, at, n, which) {
    var sum = 0, k;
    for (k = 0; k < n; k++) sum += values[at + k];
    var mean = sum / n;
    if (which === "a") return Math.fround(mean);
    var m2 = 0;
    for (k = 0; k < n; k++) { var deviation = values[at + k] - mean; m2 += deviation * deviation; }
    return Math.fround(Math.sqrt(m2 / (n - 1)));
  }

  // --- cards ----------------------------------------------------------------------------------
  function Cards(p) {
    this.p = p;
    this.skeletonOf = codes(p.card_skeletons, p.card_width, p.card_skeletons.length / p.card_width);
    this.shapes = [];      // kinds index -> parsed holes
    this.cache = [];       // card -> {html, summary}
    this.values = null;    // the float32 stream, on first use
  }

  // kinds "v0 r4.0>@6 va4 r6.a4 vs4 c1 is jM w> |", or "@base hole=kind ..." (kinds string base with
  // those holes changed) -> [{kind, slot, of, significant, more, name, word, pad}]:
  // v/r: slot k, or a statistic ("a" mean, "s" std) of the first slots (slot: their count); c: a
  // column's width, `more` than the longest hole padded to it; i/j: a counter (`name`), one on or a
  // step in words (its `word` among the card's); pad: null, a width, "@j" hole or "" (next word)
  Cards.prototype.holes = function (index) {
    var holes = this.shapes[index];
    if (holes) return holes;
    var text = this.p.kinds[index], tokens = text ? text.split(" ") : [];
    if (text[0] === "@") {  // another kinds string with a few holes changed: "@base hole=kind ..."
      var changes = tokens;
      tokens = this.p.kinds[+changes[0].slice(1)].split(" ");
      for (var c = 1; c < changes.length; c++) {
        var eq = changes[c].indexOf("=");
        tokens[+changes[c].slice(0, eq)] = changes[c].slice(eq + 1);
      }
    }
    holes = tokens.map(function (token) {
      var cut = token.indexOf(">"), kind = cut < 0 ? token : token.slice(0, cut);
      var hole = { kind: kind[0], slot: 0, of: "", significant: 0, more: 0, name: "", word: -1, padWord: -1, pad: null };
      if (cut >= 0) {
        var rule = token.slice(cut + 1);
        hole.pad = rule === "" ? "" : rule[0] === "@" ? { hole: +rule.slice(1) } : { width: +rule };
      }
      var ref = "";
      if (hole.kind === "v") ref = kind.slice(1);
      else if (hole.kind === "r") {
        var dot = kind.indexOf(".");
        hole.significant = +kind.slice(1, dot);
        ref = kind.slice(dot + 1);
      } else if (hole.kind === "c") hole.more = +kind.slice(1);
      else if (hole.kind === "i" || hole.kind === "j") hole.name = kind.slice(1);
      if (ref && (ref[0] === "a" || ref[0] === "s")) { hole.of = ref[0]; ref = ref.slice(1); }
      hole.slot = +ref;
      return hole;
    });
    holes.slots = 0;
    holes.words = 0;
    holes.counters = [];
    holes.widths = [];
    holes.forEach(function (hole, h) {
      if ((hole.kind === "v" || hole.kind === "r") && !hole.of) holes.slots = Math.max(holes.slots, hole.slot + 1);
      if (hole.kind === "w" || hole.kind === "j") hole.word = holes.words++;
      if (hole.kind === "i" || hole.kind === "j") holes.counters.push(hole);
      if (hole.kind === "c") { hole.padded = []; holes.widths.push(h); }
      if (hole.pad === "") hole.padWord = holes.words++;
    });
    holes.forEach(function (hole, h) {
      if (hole.pad && hole.pad.hole !== undefined && holes[hole.pad.hole].kind === "c") holes[hole.pad.hole].padded.push(h);
    });
    this.shapes[index] = holes;
    return holes;
  };

  // Where each card's floats and words start, and its counters' numbers (a pass over the cards, on first use).
  Cards.prototype.start = function () {
    var p = this.p, count = this.skeletonOf.length, counted = {}, counters = [];
    this.values = floats(p.floats);
    this.words = p.words ? p.words.split(" ") : [];
    this.floatAt = new Int32Array(count + 1);
    this.wordAt = new Int32Array(count + 1);
    this.counterAt = new Int32Array(count + 1);
    for (var k = 0; k < count; k++) {
      var holes = this.holes(p.skeletons[this.skeletonOf[k]][0]);
      for (var c = 0; c < holes.counters.length; c++) {
        var hole = holes.counters[c], name = hole.name;
        counted[name] = (counted[name] || 0) + (hole.kind === "i" ? 1 : +this.words[this.wordAt[k] + hole.word]);
        counters.push(counted[name]);
      }
      this.floatAt[k + 1] = this.floatAt[k] + holes.slots;
      this.wordAt[k + 1] = this.wordAt[k] + holes.words;
      this.counterAt[k + 1] = this.counterAt[k] + holes.counters.length;
    }
    this.counters = counters;
  };

  Cards.prototype.card = function (k) {
    var found = this.cache[k];
    if (found) return found;
    if (!this.values) this.start();
    var p = this.p, skeleton = p.skeletons[this.skeletonOf[k]], holes = this.holes(skeleton[0]);
    var segments = p.segment_lists[skeleton[1]], numbers = {}, texts = new Array(holes.length);
    var floatAt = this.floatAt[k], word = this.wordAt[k], counter = this.counterAt[k], h, hole, text;
    for (h = 0; h < holes.length; h++) {  // each hole's text; a column's width once its column's are known
      hole = holes[h];
      text = "";
      if (hole.kind === "w") text = this.words[word + hole.word];
      else if (hole.kind === "v" || hole.kind === "r") {
        var key = hole.of + hole.slot, number = numbers[key];
        if (!number) {
          number = numbers[key] = float32Number(
            hole.of ? statistic(this.values, floatAt, hole.slot, hole.of) : this.values[floatAt + hole.slot]);
        }
        text = hole.kind === "v" ? exactText(number) : roundedText(number, hole.significant);
      } else if (hole.kind === "i" || hole.kind === "j") text = hole.name + this.counters[counter++];
      texts[h] = text;
    }
    for (var w = 0; w < holes.widths.length; w++) {
      var at = holes.widths[w], longest = 0, padded = holes[at].padded;
      for (var c = 0; c < padded.length; c++) longest = Math.max(longest, texts[padded[c]].length);
      texts[at] = String(longest + holes[at].more);
    }
    var out = "", summary = null;
    for (h = 0; h < holes.length; h++) {
      hole = holes[h];
      text = texts[h];
      var segment = p.segments[segments[h]];
      if (hole.pad !== null) {
        var width = hole.pad === "" ? +this.words[word + hole.padWord] + text.length
          : hole.pad.hole !== undefined ? +texts[hole.pad.hole] : hole.pad.width;
        segment = segment.replace(PAD, " ".repeat(Math.max(0, width - text.length)));
      }
      out += segment;
      if (hole.kind === "|") { summary = out; out = ""; } else out += text;
    }
    found = this.cache[k] = { html: out + p.segments[segments[holes.length]], summary: summary };
    return found;
  };

  // --- steps ----------------------------------------------------------------------------------
  function unpackSteps(data, p) {
    var count = data.count, columns = p.columns, width = columns.length, ids = codes(p.codes, p.code_width, count);
    var arrays = columns.map(function () { return new Array(count); }), running = new Array(width).fill(0);
    var env = {}, clear = {}, names = p.names, nextCard = 0;
    for (var i = 0; i < count; i++) {
      var record = p.records[ids[i]];
      for (var c = 0; c < width; c++) arrays[c][i] = running[c] += record[c];
      var diff = record[width], cleared = record[width + 1];
      if (diff.length) {
        var pairs = env[i] = new Array(diff.length);
        for (var k = 0; k < diff.length; k++) {
          var card = diff[k][1] + nextCard;
          pairs[k] = [names[diff[k][0]], card];
          if (card >= nextCard) nextCard = card + 1;
        }
      }
      if (cleared.length) clear[i] = cleared.map(function (n) { return names[n]; });
    }
    data.steps = {};
    columns.forEach(function (name, c) { data.steps[name] = arrays[c]; });
    data.env = env;
    data.clear = clear;
    data.snapshots = snapshots(count, data.steps.act_prev, env, clear);
  }

  // The accumulated env at every SNAPSHOT_EVERY-th step of each frame activation.
  function snapshots(count, actPrev, env, clear) {
    var open = new Map(), position = new Int32Array(count), out = {};
    for (var i = 0; i < count; i++) {
      var before = actPrev[i], state;
      if (before >= 0) {
        state = open.get(before) || new Map();
        open.delete(before);
        position[i] = position[before] + 1;
      } else state = new Map();
      var cleared = clear[i], diff = env[i];
      if (cleared) for (var c = 0; c < cleared.length; c++) state.delete(cleared[c]);
      if (diff) for (var k = 0; k < diff.length; k++) state.set(diff[k][0], diff[k][1]);
      open.set(i, state);
      if (position[i] && position[i] % SNAPSHOT_EVERY === 0 && state.size) out[i] = Array.from(state.entries());
    }
    return out;
  }

  function unpack(data) {
    var p = data.packed;
    if (!p) return data;
    unpackSteps(data, p);
    var cards = new Cards(p);
    data.card = function (k) { return cards.card(k); };
    delete data.packed;
    return data;
  }

  window.CHALKTRACE_STEP_DATA = { unpack: unpack };
})();
