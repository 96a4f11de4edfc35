import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { embeddedIpv4, ipv6Bytes, jsonDepthExceeds, PrivateAddressGuard } from "../src/index.js";

describe("jsonDepthExceeds", () => {
  it("counts nesting outside strings only", () => {
    assert.equal(jsonDepthExceeds(`${"[".repeat(501)}${"]".repeat(501)}`), true);
    assert.equal(jsonDepthExceeds(`${"[".repeat(500)}${"]".repeat(500)}`), false);
    assert.equal(jsonDepthExceeds(`{"a":"${"[".repeat(2000)}"}`), false, "brackets inside a string");
    assert.equal(jsonDepthExceeds(`{"a":"\\"${"{".repeat(2000)}"}`), false, "escaped quote");
    assert.equal(jsonDepthExceeds('{"a":{"b":{}}}', 2), true);
  });
});

describe("PrivateAddressGuard", () => {
  const guard = new PrivateAddressGuard();
  it("reads the IPv4 address carried by IPv6 forms", () => {
    assert.equal(embeddedIpv4(ipv6Bytes("64:ff9b::7f00:1") ?? []), "127.0.0.1");
    assert.equal(embeddedIpv4(ipv6Bytes("::ffff:10.1.2.3") ?? []), "10.1.2.3");
    assert.equal(embeddedIpv4(ipv6Bytes("2002:a9fe:a9fe::1") ?? []), "169.254.169.254");
    assert.equal(embeddedIpv4(ipv6Bytes("::7f00:1") ?? []), "127.0.0.1");
    assert.equal(embeddedIpv4(ipv6Bytes("2606:4700::1111") ?? []), null);
  });
  it("refuses private targets in every spelling, allows public ones", () => {
    for (const a of [
      "127.0.0.1",
      "::1",
      "::",
      "fe80::1%eth0",
      "64:ff9b::a00:1",
      "2002:c0a8::",
      "::ffff:7f00:1",
      "not-an-ip",
    ])
      assert.equal(guard.isPrivate(a), true, a);
    for (const a of ["93.184.216.34", "2606:4700::1111", "64:ff9b::5db8:d822"])
      assert.equal(guard.isPrivate(a), false, a);
    assert.match(guard.refuseHost("[::ffff:7f00:1]") ?? "", /private or loopback/);
    assert.match(guard.refuseHost("LOCALHOST.") ?? "", /this machine/);
    assert.equal(guard.refuseHost("example.com"), null);
  });
});
