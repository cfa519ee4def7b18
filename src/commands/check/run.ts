/**
 * `model-feed-mcp check [paths…]`: the models a codebase names, held against the catalog, the feed's
 * deprecation notices and price history; exit 1 on a finding of a `--fail-on` kind (docs/check.md).
 * Reads: the catalog and the notices, then one history per referenced model (at most 50), all
 * cached, so a second run within the TTL asks the service nothing.
 */

import type { StaleInfo } from '../../api/client.js';
import { checkBaselineTarget, readBaseline, writeBaseline } from '../../check/baseline-file.js';
import { type Finding, type FindingKind, findingsFor } from '../../check/findings.js';
import { renderReportParts } from '../../check/format.js';
import { compileMatcher, type DroppedSpans } from '../../check/matcher.js';
import type { CheckOptions } from '../../check/options.js';
import { baselineOf, buildReport } from '../../check/report.js';
import { scanPaths } from '../../check/scan.js';
import { readCatalogAndNotices, readHistories } from '../../check/service-facts.js';
import { refuseUnusablePaths, unreadVerdict } from '../../check/unread.js';
import type { Config } from '../../config.js';
import { describeError } from '../../describe-error.js';
import { ConfigError, isServiceUnavailable } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { SAMPLE_DATA_NOTE } from '../../mcp-server.js';
import { echoPath, redactSecrets } from '../../text/redact.js';
import { terminalSafe } from '../../text/terminal.js';
import { runOneShot } from '../one-shot.js';

/**
 * The referenced catalog ids, the most referenced first (they get their price checked first), those
 * past the caps (`notListed`) included.
 */
function byReferences(
  modelIds: readonly (string | null)[],
  notListed: ReadonlyMap<string, number>,
): string[] {
  const counts = new Map(notListed);
  for (const id of modelIds) if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
}

/** How many references past the caps have a finding of a `--fail-on` kind (a near miss is `not_listed`). */
function failingNotListed(
  notListed: DroppedSpans,
  findings: (modelId: string) => Finding[],
  failOn: readonly FindingKind[],
): number {
  let failing = failOn.includes('not_listed') ? notListed.nearMisses : 0;
  for (const [modelId, count] of notListed.models) {
    if (findings(modelId).some((finding) => failOn.includes(finding.kind))) failing += count;
  }
  return failing;
}

export async function runCheck(config: Config, io: CliIo, options: CheckOptions): Promise<number> {
  // What reaches the terminal: no secret, no escape sequence, whatever the service or a file held.
  const print = (text: string): string => terminalSafe(redactSecrets(text, config.secrets));
  return runOneShot(config, io, print, async ({ log, runtime, signal }) => {
    try {
      if (!options.allowUnread) await refuseUnusablePaths(options.paths);
      if (options.writeBaseline) await checkBaselineTarget(options.writeBaseline);
      const baseline = options.baseline ? await readBaseline(options.baseline) : [];
      let stale: StaleInfo | undefined;
      const notes = {
        onStale: (info: StaleInfo) => {
          if (!stale || info.ageSeconds > stale.ageSeconds) stale = info;
        },
      };
      let facts: Awaited<ReturnType<typeof readCatalogAndNotices>>;
      try {
        facts = await readCatalogAndNotices(runtime.api, signal, notes);
      } catch (error) {
        if (!isServiceUnavailable(error)) throw error;
        io.stderr(
          `${print(describeError(error, 'shell'))} No cached catalog is young enough to check against instead (at most --stale-max-age ${config.staleMaxAgeS} s old).\n`,
        );
        return EXIT.failed;
      }
      if (stale) {
        log.warn(
          `checked against a copy of the catalog ${stale.ageSeconds} s old: ${stale.reason}; findings may miss the newest changes`,
        );
      }
      if (runtime.sampleData) io.stderr(`${SAMPLE_DATA_NOTE}\n`);
      const { resolve } = process.getBuiltinModule('node:path');
      const scan = await scanPaths(options.paths, compileMatcher(facts.catalog), {
        maxFileSize: options.maxFileSizeBytes,
        // The baseline names every accepted reference: scanned, it would report them all again.
        skip: new Set(
          [options.baseline, options.writeBaseline].flatMap((file) => (file ? [resolve(file)] : [])),
        ),
        signal: signal,
      });
      const referenced = byReferences(
        scan.references.map((r) => r.modelId),
        scan.notListed.models,
      );
      const { histories, notPriceChecked, noPriceHistory } = await readHistories(
        runtime.api,
        referenced,
        signal,
      );
      const findings = findingsFor({ ...facts, histories, since: options.since });
      const report = buildReport(
        scan.references.map((r) => ({
          path: r.path,
          line: r.line,
          column: r.column,
          text: r.text,
          modelId: r.modelId,
          ...(r.version !== undefined && { version: r.version }),
          ...(r.variant !== undefined && { variant: r.variant }),
          findings: r.modelId
            ? findings(r.modelId, r.variant ?? null)
            : [{ kind: 'not_listed', suggestions: r.suggestions }],
        })),
        {
          ...scan.counts,
          repeatsNotListed: scan.repeatsNotListed,
          referencesNotListed: scan.notListed.count,
          referencesNotListedFailing: failingNotListed(scan.notListed, findings, options.failOn),
        },
        { failOn: options.failOn, baseline, notPriceChecked, noPriceHistory },
      );
      const unread = options.allowUnread ? undefined : unreadVerdict(scan.counts, options.paths);
      const shown = unread ? { ...report, incomplete: true } : report;
      for (const part of renderReportParts(shown, options.format, {
        suggestCheaper: options.suggestCheaper,
      })) {
        io.stdout(print(part));
      }
      if (unread) {
        io.stderr(`${print(unread)}\n`);
        return EXIT.usage;
      }
      if (options.writeBaseline) {
        const entries = baselineOf(report);
        await writeBaseline(options.writeBaseline, entries);
        io.stderr(
          print(
            `Wrote ${entries.length} accepted ${entries.length === 1 ? 'finding' : 'findings'} to ${echoPath(options.writeBaseline, config.secrets)}.\n`,
          ),
        );
        return EXIT.ok;
      }
      return report.failed ? EXIT.failed : EXIT.ok;
    } catch (error) {
      io.stderr(`${print(describeError(error, 'shell'))}\n`);
      return error instanceof ConfigError ? EXIT.usage : EXIT.failed;
    }
  });
}
