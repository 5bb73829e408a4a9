// The table options as the rules define them: okeycore's spec, read from the table service
// (TableService.GetOptionSpec, no token needed) and kept for the page's life. The create form
// and the lobby's cards are drawn from it: no option, bound, default or value is written in the
// client, and every text for one is i18n's (opt.<name>, opt.<name>.<VALUE>).
import { api } from "./api.js";
import { tr } from "./i18n.js";

// Each option: {name, json, games: ["OKEY", ...], kind: "int" | "bool" | "enum" | "choice", min
// and max (int), choices (choice: the numbers listed), values (enum: the rules' names,
// "DEAD_HAND"), prefix (the proto enum's, "DECK_END_"), def (the default as the rules name it:
// 20, true, "DEAD_HAND")}, in RULES.md section 5's order. Empty until the spec has come.
let SPEC = [];

function fromWire(o) {
  const kind = String(o.kind || "").replace("OPTION_KIND_", "").toLowerCase();
  const prefix = o.enumPrefix || "";
  const bare = (v) => String(v || "").slice(prefix.length);
  return {
    name: o.name,
    json: o.jsonName,
    games: (o.games || []).map((g) => String(g).replace("GAME_", "")),
    kind,
    min: Number(o.min || 0),
    max: Number(o.max || 0),
    choices: (o.choices || []).map(Number),
    values: (o.enumValues || []).map(bare),
    prefix,
    def: kind === "bool" ? !!o.defaultBool : kind === "enum" ? bare(o.defaultEnum) : Number(o.defaultInt || 0),
  };
}

let loading = null;
/** Fetch the spec once (again after a failure); resolves true when it is here. */
export function loadOptionSpec() {
  if (SPEC.length) return Promise.resolve(true);
  if (!loading) {
    loading = api("TableService", "GetOptionSpec", {})
      .then((r) => { SPEC = (r.options || []).map(fromWire); return SPEC.length > 0; })
      .catch(() => false)
      .finally(() => { loading = null; });
  }
  return loading;
}

/** The options of a game ("OKEY", "OKEY101"), in the rules' order; every option without one. */
export function optionsOf(game) { return game ? SPEC.filter((o) => o.games.includes(game)) : SPEC.slice(); }

/** One option's spec by its name, or null. */
export function optionSpec(name) { return SPEC.find((o) => o.name === name) || null; }

/** A value as the lobby's TableRule carries it ("20", "on", "DEAD_HAND"); the default without one. */
export function ruleValue(o, value = o.def) {
  if (o.kind === "bool") return typeof value === "string" ? value : value ? "on" : "off";
  return String(value);
}

/** A value as a player reads it ("Açık", "El puansız biter", "20"); ``value`` as ruleValue's. */
export function valueText(o, value = o.def) {
  const v = ruleValue(o, value);
  if (o.kind === "bool") return tr("opt." + v);
  if (o.kind === "enum") return tr(`opt.${o.name}.${v}`);
  return v;
}

/** An option's help, with its bounds from the spec ({min}, {max}). */
export function helpText(o) { return tr(`opt.${o.name}.help`, { min: o.min, max: o.max }); }
