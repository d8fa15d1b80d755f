/** The check of src/ (see structure.mjs): the lines naming each problem, and, when there are none, the layers drawn. */
export function structure(src?: string): { errors: string[]; drawing: string[] };
