// Type-checked (never run) by scripts/clients.sh against the types that openapi-typescript
// generates from openapi/openapi.json: `tsc --noEmit --strict` fails when the document stops
// giving a client what this file relies on.
import type { components, paths } from "../../target/clients/ts/paiju";

type Schemas = components["schemas"];
type MatchView = Schemas["MatchView"];
type Problem = Schemas["Problem"];

// The view is a union discriminated on `game`: narrowing on it gives the game's own state.
export function dazhaHandSize(view: MatchView): number | null {
  if (view.game === "dazha") {
    const state: Schemas["DazhaState"] = view.state;
    return state.hand?.length ?? null;
  }
  return null;
}

// Every game is in the union, and each narrows to its own view.
export function describe(view: MatchView): string {
  switch (view.game) {
    case "chexuan":
      return `扯旋 hand ${view.hand_no}, phase ${view.phase}`;
    case "shengji":
    case "sandaha":
    case "chehuzi":
    case "dazha":
      return `${view.game} hand ${view.hand_no}, to act: ${view.to_act.join(",")}`;
    default: {
      const never: never = view;
      return never;
    }
  }
}

// What POST /v1/matches/{id}/actions takes and answers, straight from `paths`.
type SubmitAction = paths["/v1/matches/{id}/actions"]["post"];
export const pass: SubmitAction["requestBody"]["content"]["application/json"] = {
  version: 7,
  action: { type: "pass" },
};
export type Submitted = SubmitAction["responses"][200]["content"]["application/json"];
const viewAfter = (v: Submitted): MatchView => v;

// A refusal: the stable code, and for a game's refusal the rule broken and the current view.
export function explain(problem: Problem): string {
  const rule: Schemas["RuleCode"] | null | undefined = problem.rule;
  if (problem.code === "version_conflict" && problem.view) {
    return `stale; now at version ${viewAfter(problem.view).version}`;
  }
  return `${problem.code}${rule ? ` (${rule})` : ""}: ${problem.detail}`;
}

// The hint is an action ready to submit.
export function fromHint(hint: Schemas["Hint"]): Schemas["ActionRequest"] {
  return { version: hint.version, action: hint.action };
}
