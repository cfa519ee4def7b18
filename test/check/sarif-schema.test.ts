/**
 * The SARIF schema the check tests validate against is loaded from its package and enforced: a
 * validator that let everything through would make every "valid SARIF" assertion meaningless.
 */

import { describe, expect, it } from 'vitest';
import { sarifValidator } from './sarif-schema.js';

/** The shape `check --format sarif` writes, with one rule and one result. */
function sarifLog() {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'model-feed-mcp',
            informationUri: 'https://www.npmjs.com/package/model-feed-mcp',
            rules: [{ id: 'deprecated', defaultConfiguration: { level: 'error' } }],
          },
        },
        results: [
          {
            ruleId: 'deprecated',
            level: 'error',
            message: { text: 'retires on 2026-11-01' },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: 'src/app.py' },
                  region: { startLine: 3, startColumn: 9, endColumn: 21 },
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

describe('the SARIF 2.1.0 schema from @microsoft/jest-sarif', () => {
  const validate = sarifValidator();
  const errorsOf = (log: unknown) =>
    validate(log) ? [] : (validate.errors ?? []).map((e) => e.instancePath);

  it('accepts a log of the shape check writes', () => {
    expect(errorsOf(sarifLog()), JSON.stringify(validate.errors)).toEqual([]);
  });

  it('rejects a broken log, naming each broken place', () => {
    const broken = sarifLog();
    broken.version = '2.0.0';
    const [result] = broken.runs[0]!.results;
    result!.level = 'fatal';
    result!.locations[0]!.physicalLocation.region.startLine = 0;
    result!.locations[0]!.physicalLocation.artifactLocation.uri = 'not a uri reference %';
    expect(errorsOf(broken)).toEqual(
      expect.arrayContaining([
        '/version',
        '/runs/0/results/0/level',
        '/runs/0/results/0/locations/0/physicalLocation/region/startLine',
        '/runs/0/results/0/locations/0/physicalLocation/artifactLocation/uri',
      ]),
    );
  });

  it('rejects a run without the tool that made it', () => {
    const { tool: _, ...withoutTool } = sarifLog().runs[0]!;
    expect(errorsOf({ ...sarifLog(), runs: [withoutTool] })).toEqual(['/runs/0']);
  });
});
