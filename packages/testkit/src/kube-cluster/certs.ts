import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Files the API server and its clients need: a CA, its serving pair, the service-account keys, a token. */
export interface ClusterCredentials {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  /** Static token file (`--token-auth-file`): one admin in `system:masters`. */
  tokenFile: string;
  /** The admin's bearer token. */
  token: string;
}

/** Names the serving certificate answers to: loopback, and the in-cluster names of the API. */
const SERVER_NAMES = [
  "IP:127.0.0.1",
  "IP:10.96.0.1",
  "DNS:localhost",
  "DNS:kubernetes",
  "DNS:kubernetes.default",
  "DNS:kubernetes.default.svc",
  "DNS:kubernetes.default.svc.cluster.local",
];

/**
 * Makes a throw-away CA, a serving certificate signed by it, the service-account signing pair and
 * an admin token in `dir`, with openssl (arguments passed as a list, no shell). Valid two days.
 */
export async function makeCredentials(dir: string): Promise<ClusterCredentials> {
  const file = (name: string) => path.join(dir, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run("openssl", [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.crt"),
    "-days",
    "2",
    "-subj",
    "/CN=berth-test-cluster-ca",
  ]);
  await run("openssl", [
    "req",
    ...ec,
    "-keyout",
    file("apiserver.key"),
    "-out",
    file("apiserver.csr"),
    "-subj",
    "/CN=kube-apiserver",
  ]);
  fs.writeFileSync(
    file("apiserver.ext"),
    `subjectAltName=${SERVER_NAMES.join(",")}\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n`,
  );
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    file("apiserver.csr"),
    "-CA",
    file("ca.crt"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("apiserver.crt"),
    "-days",
    "2",
    "-extfile",
    file("apiserver.ext"),
  ]);
  // Service-account tokens are signed with this pair (RS256, which every client verifies).
  const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  fs.writeFileSync(file("sa.key"), privateKey.export({ type: "pkcs8", format: "pem" }));
  fs.writeFileSync(file("sa.pub"), publicKey.export({ type: "spki", format: "pem" }));
  const token = crypto.randomBytes(24).toString("hex");
  fs.writeFileSync(file("tokens.csv"), `${token},berth-test-admin,berth-test-admin,"system:masters"\n`, {
    mode: 0o600,
  });
  return {
    caCert: file("ca.crt"),
    caKey: file("ca.key"),
    serverCert: file("apiserver.crt"),
    serverKey: file("apiserver.key"),
    serviceAccountKey: file("sa.key"),
    serviceAccountPub: file("sa.pub"),
    tokenFile: file("tokens.csv"),
    token,
  };
}

/** A kubeconfig for `server` with the CA inlined and a bearer token. */
export function kubeconfigYaml(server: string, caCertFile: string, token: string, user = "admin"): string {
  const ca = fs.readFileSync(caCertFile).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: berth-test",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${ca}`,
    "users:",
    `- name: ${user}`,
    "  user:",
    `    token: ${token}`,
    "contexts:",
    "- name: berth-test",
    "  context:",
    "    cluster: berth-test",
    `    user: ${user}`,
    "current-context: berth-test",
    "",
  ].join("\n");
}
