import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AddressPolicy } from "../src/webhooks/address-policy.js";

describe("AddressPolicy", () => {
  const strict = new AddressPolicy(false);
  it("refuses loopback, private, link-local and mapped addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.0.0.5",
      "172.16.3.4",
      "192.168.1.1",
      "169.254.169.254",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "0.0.0.0",
      // issue 11 item 11: IPv6 forms that carry a private IPv4 address
      "64:ff9b::7f00:1",
      "64:ff9b::169.254.169.254",
      "::7f00:1",
      "::10.0.0.1",
      "2002:7f00:1::1",
      "2002:c0a8:101::",
      "::ffff:7f00:1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
      "64:ff9b:1::1",
      "fec0::1",
    ]) {
      assert.equal(strict.allows(address), false, address);
    }
    for (const address of ["93.184.216.34", "2606:4700::1111", "64:ff9b::5db8:d822", "2002:5db8:d822::1"])
      assert.equal(strict.allows(address), true, address);
  });
  it("explains refused URLs and lets public ones through", () => {
    assert.match(strict.refuseUrl("ftp://example.com/") ?? "", /http and https/);
    assert.match(strict.refuseUrl("http://localhost:8080/") ?? "", /this machine/);
    assert.match(strict.refuseUrl("http://[::1]/") ?? "", /private or loopback/);
    assert.match(strict.refuseUrl("not a url") ?? "", /not a URL/);
    assert.equal(strict.refuseUrl("https://hooks.example.com/x"), null);
  });
  it("lets a path of the server's own app through, not a protocol-relative URL (issue 29)", () => {
    assert.equal(strict.refuseUrl("/custom/webhook"), null);
    assert.match(strict.refuseUrl("//127.0.0.1/x") ?? "", /not a URL/);
    assert.match(strict.refuseUrl("/\\127.0.0.1/x") ?? "", /not a URL/);
  });
  it("allows everything when private targets are allowed", () => {
    const open = new AddressPolicy(true);
    assert.equal(open.allows("127.0.0.1"), true);
    assert.equal(open.refuseUrl("http://localhost/"), null);
  });
});
