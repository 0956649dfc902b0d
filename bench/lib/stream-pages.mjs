// Every Wire of one stream as the API serves it (with its `anchor`), page by
// page through `GET /v1/streams/{id}/wires`.

export async function* streamWires(url, streamId, headers) {
  let after = 0;
  for (;;) {
    const res = await fetch(
      `${url}/v1/streams/${encodeURIComponent(streamId)}/wires?after_seq=${after}&limit=1000`,
      { headers },
    );
    const page = await res.json();
    yield* page.wires;
    if (page.next_after_seq === null || page.wires.length === 0) return;
    after = page.next_after_seq;
  }
}
