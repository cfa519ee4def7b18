/** From the aggregator's `data` array: whether a catalog makes a token findable. */
export function findableIn(
  models: { id: string; hugging_face_id?: string | null }[],
): (token: string) => boolean;
