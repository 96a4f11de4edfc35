import { BadRequestError } from "../errors.js";

/** One part of a multipart/form-data body. */
export interface MultipartPart {
  name: string;
  contentType: string | null;
  data: Buffer;
}

const MAX_PARTS = 100_000;

/** The boundary of a `multipart/form-data; boundary=…` content type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  const match = contentType?.match(/boundary=(?:"([^"]{1,200})"|([^;\s]{1,200}))/i);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

/**
 * Splits a buffered multipart/form-data body (RFC 7578) into its parts. The body was already
 * bounded by the route's limit; anything malformed is a 400, never an exception of another kind.
 */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new BadRequestError("Malformed multipart body: no boundary.");
  pos += delimiter.length;
  for (;;) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts; // "--": the closing delimiter
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) {
      throw new BadRequestError("Malformed multipart body: a boundary is not followed by a line break.");
    }
    pos += 2;
    const headersEnd = body.indexOf("\r\n\r\n", pos);
    if (headersEnd < 0) throw new BadRequestError("Malformed multipart body: a part has no header end.");
    const headers = body.subarray(pos, headersEnd).toString("utf8").split("\r\n");
    const dataStart = headersEnd + 4;
    const dataEnd = body.indexOf(next, dataStart);
    if (dataEnd < 0) throw new BadRequestError("Malformed multipart body: a part is not closed.");
    let name: string | null = null;
    let contentType: string | null = null;
    for (const line of headers) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const header = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (header === "content-disposition") name = value.match(/\bname="([^"]*)"/)?.[1] ?? null;
      else if (header === "content-type") contentType = value;
    }
    if (name === null) throw new BadRequestError("Malformed multipart body: a part has no name.");
    parts.push({ name, contentType, data: body.subarray(dataStart, dataEnd) });
    if (parts.length > MAX_PARTS)
      throw new BadRequestError(`A multipart body may hold ${MAX_PARTS} parts at most.`);
    pos = dataEnd + next.length;
  }
}
