/** The model's Mermaid diagrams (model/mermaid.ts), loaded lazily so only `model` and the report pay for the model. */
import type { DiagramSection } from './report/diagrams.ts';

export async function loadDiagrams(): Promise<DiagramSection> {
  try {
    const { machineDiagrams } = await import('../model/mermaid.ts');
    return { kind: 'ok', diagrams: machineDiagrams() };
  } catch (e) {
    return { kind: 'unavailable', reason: `model/mermaid.ts could not be loaded (${e instanceof Error ? e.message : String(e)})` };
  }
}
