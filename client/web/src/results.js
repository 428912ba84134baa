// A test's figures as the job page shows them (html from api.js).
import { fixed, html, raw } from "./api.js";

// Whether the job trained on standardized targets (the expert system's
// decision): its regression test loss is then in those units.
export const standardizedTargets = (job) =>
  (job.summary?.decisions ?? []).some((d) => d.what.startsWith("standardize the targets"));

// One output's test figures: a classifier's accuracy, then precision,
// recall, F1 and support a class a row, and its confusion matrix named on
// both axes; a regression output's MAE, RMSE and R² in the target's units.
export function outputMetrics(m, standardized) {
  if (!m.classification) {
    const units = m.mae.map((_, u) => html`<tr><td>${m.mae.length > 1 ? `unit ${u + 1}` : m.name}</td>
      <td class="mono">${fixed(m.mae[u])}</td><td class="mono">${fixed(m.rmse[u])}</td><td class="mono">${fixed(m.r2[u])}</td></tr>`).join("");
    return html`<div class="output-metrics" data-output="${m.name}"><b>${m.name}</b>: MAE ${m.mae.map((v) => fixed(v)).join(" ")} · RMSE ${m.rmse.map((v) => fixed(v)).join(" ")} · R² ${m.r2.map((v) => fixed(v)).join(" ")}
      <table class="metrics"><thead><tr><th></th><th>MAE</th><th>RMSE</th><th>R²</th></tr></thead><tbody>${raw(units)}</tbody></table>
      <p class="muted small">errors in the target's own units${standardized ? "; the test loss is on the standardized targets the model trained on" : ""}</p></div>`;
  }
  const support = (c) => (m.confusionMatrix[c]?.counts ?? []).reduce((a, b) => a + Number(b), 0);
  const classRows = m.classes.map((name, c) => html`<tr><td>${name}</td><td class="mono">${fixed(m.precision[c], 3)}</td>
    <td class="mono">${fixed(m.recall[c], 3)}</td><td class="mono">${fixed(m.f1[c], 3)}</td><td class="mono">${support(c)}</td></tr>`).join("");
  const matrix = m.confusionMatrix.length === m.classes.length
    ? html`<table class="confusion" aria-label="confusion matrix of ${m.name}"><thead><tr><th>true \\ predicted</th>${raw(m.classes.map((c) => html`<th>${c}</th>`).join(""))}</tr></thead>
      <tbody>${raw(m.confusionMatrix.map((row, r) => html`<tr><th>${m.classes[r]}</th>${raw(row.counts.map((n, p) =>
        html`<td class="mono ${raw(r === p ? "hit" : Number(n) > 0 ? "miss" : "")}">${Number(n)}</td>`).join(""))}</tr>`).join(""))}</tbody></table>`
    : "";
  return html`<div class="output-metrics" data-output="${m.name}"><b>${m.name}</b>: accuracy ${fixed(m.accuracy)}
    <table class="metrics per-class"><thead><tr><th>class</th><th>precision</th><th>recall</th><th>F1</th><th>support</th></tr></thead><tbody>${raw(classRows)}</tbody></table>
    ${raw(matrix)}</div>`;
}
