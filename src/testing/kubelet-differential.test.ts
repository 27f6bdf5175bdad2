import { describe, expect, test } from "bun:test";
import { KNOWN_KUBELET_DIFFERENCES, normalize } from "./kubelet-differential.ts";

describe("the kubelet differential's facts do not depend on the machine", () => {
  test("a registry name that does not resolve reads the same whatever the machine's resolver answered", () => {
    const head =
      'failed to pull and unpack image "registry.example/none:1": failed to resolve reference "registry.example/none:1": failed to do request: Head "https://registry.example/v2/none/manifests/1": dial tcp: lookup registry.example';
    const answers = [
      " on 10.0.0.53:53: no such host",
      " on 127.0.0.53:53: server misbehaving",
      " on [::1]:53: read udp [::1]:41234->[::1]:53: read: connection refused",
      ": i/o timeout",
      " on 192.0.2.1:53: dial udp 192.0.2.1:53: connect: network is unreachable",
    ];
    const seen = new Set(answers.map((a) => normalize(`${head}${a}`)));
    expect([...seen]).toEqual([
      'failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": failed to do request: Head "https://registry.example/v#/none/manifests/#": dial tcp: lookup registry.example: not resolved',
    ]);
    // And that is the fact documented for the real kubelet.
    expect(KNOWN_KUBELET_DIFFERENCES.some((d) => d.only === "real" && d.fact.endsWith(`${[...seen][0]}`))).toBe(true);
  });
});
