/** The model's Mermaid diagrams (model/mermaid.ts), loaded lazily so only `model` and the report pay for the model. */
import type { DiagramSection } from './report/diagrams.ts';

export async function loadDiagrams(): Promise<DiagramSection> {
  try {
    const { machineDiagrams, machineGraphs } = await import('../model/mermaid.ts');
    const graphs = machineGraphs();
    return { kind: 'ok', diagrams: machineDiagrams().map((d) => ({ ...d, graph: graphs.find((g) => g.name === d.name) })) };
  } catch (e) {
    return { kind: 'unavailable', reason: `model/mermaid.ts could not be loaded (${e instanceof Error ? e.message : String(e)})` };
  }
}
