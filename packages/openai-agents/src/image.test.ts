// view_image over a real LocalRuntime: the formats the framework's own
// sandboxes show the model, by content and, for SVG, by name.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { UserError } from "@openai/agents-core";
import { dir, Manifest } from "@openai/agents-core/sandbox";
import { localTestRuntime } from "@sandport/testkit/fakes";
import { SandportSandboxClient } from "./index.js";

const local = await localTestRuntime("openai-image");
after(() => local.cleanup());

const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>';
const bytes = (text: string) => new TextEncoder().encode(text);

test("view_image shows SVG (by content or a .svg/.svgz name), BMP and TIFF; other bytes are still refused", async () => {
  const sandbox = await new SandportSandboxClient({ runtime: local.runtime }).create({ manifest: new Manifest() });
  await sandbox.start();
  try {
    const files: [string, Uint8Array][] = [
      ["plain.svg", bytes(svg)],
      ["declared.xml", bytes(`\n  <?xml version="1.0" encoding="UTF-8"?>\n<!-- drawn -->\n${svg}`)],
      ["drawing.svgz", gzipSync(bytes(svg))],
      ["upper.SVG", bytes("not markup, but named as SVG")],
      ["bitmap.bmp", Uint8Array.from([0x42, 0x4d, 0x3a, 0, 0, 0])],
      ["scan.tiff", Uint8Array.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0])],
      ["notes.txt", bytes("just text")],
    ];
    await local.runtime.writeFiles(
      sandbox.state.sandbox,
      files.map(([path, content]) => ({ path, content })),
    );
    const mediaType = async (path: string) => {
      const image = await sandbox.viewImage({ path });
      const shown = image.image as { data: Uint8Array; mediaType: string };
      assert.deepEqual(Buffer.from(shown.data), Buffer.from(files.find(([name]) => name === path)?.[1] ?? []));
      return shown.mediaType;
    };
    assert.equal(await mediaType("plain.svg"), "image/svg+xml");
    assert.equal(await mediaType("declared.xml"), "image/svg+xml");
    assert.equal(await mediaType("drawing.svgz"), "image/svg+xml");
    assert.equal(await mediaType("upper.SVG"), "image/svg+xml");
    assert.equal(await mediaType("bitmap.bmp"), "image/bmp");
    assert.equal(await mediaType("scan.tiff"), "image/tiff");
    await assert.rejects(
      sandbox.viewImage({ path: "notes.txt" }),
      /Unsupported image format for view_image: notes\.txt/,
    );
  } finally {
    await sandbox.delete();
  }
});

test("view_image words a missing path and a directory as the framework's sandboxes do", async () => {
  const sandbox = await new SandportSandboxClient({ runtime: local.runtime }).create({
    manifest: new Manifest({ entries: { pictures: dir() } }),
  });
  try {
    const refused = (message: string) => (error: unknown) => error instanceof UserError && error.message === message;
    await assert.rejects(sandbox.viewImage({ path: "missing.png" }), refused("Image file not found: missing.png"));
    await assert.rejects(sandbox.viewImage({ path: "pictures" }), refused("Image path is not a file: pictures"));
  } finally {
    await sandbox.delete();
  }
});
