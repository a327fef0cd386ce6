// The id of the loader's own listeners (they pin calls to a set); it shows in decision trails. Its
// own file so that `explain.ts` names it without loading the loader.
export const PIN_ID = 'policy-set';
