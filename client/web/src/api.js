// The front end's connection to webnnmd (grpc-web, same origin, the
// bearer token from sign-in) and the small helpers every view uses.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { JobState, Webnnm } from "../gen/webnnm/v1/webnnm_pb.js";

// --- The API -------------------------------------------------------------

export const tokenKey = "webnnm.token";
const auth = (next) => async (req) => {
  const token = localStorage.getItem(tokenKey);
  if (token) req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};
export const api = createClient(
  Webnnm,
  createGrpcWebTransport({ baseUrl: location.origin, interceptors: [auth] }),
);

// --- Small helpers -------------------------------------------------------

export const $ = (selector, root = document) => root.querySelector(selector);
export const view = () => $("#view");
export const enumName = (e, v) => String(e[v] ?? v).replace(/^(JOB_STATE|EVENT_TYPE)_/, "");
export const stateName = (v) => enumName(JobState, v);
export const fixed = (v, d = 4) => (v === undefined || v === null || Number.isNaN(v) ? "–" : Number(v).toFixed(d));

export function html(strings, ...values) {
  const escape = (v) => String(v).replace(/[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  return strings.reduce((out, s, i) =>
    out + s + (i < values.length ? (values[i]?.raw ?? escape(values[i])) : ""), "");
}
export const raw = (s) => ({ raw: s });

export function status(message, error = false) {
  const el = $("#status");
  el.textContent = message;
  el.className = error ? "error" : "";
}

export async function guard(work) {
  try {
    return await work();
  } catch (e) {
    status(e.rawMessage ?? e.message ?? String(e), true);
    return undefined;
  }
}
