/** A start that cannot go on, for a reason the operator can fix: said in one line. */
export class StartRefused extends Error {}
