/**
 * Typed configuration with hot reload, safe versioned writes, history, rollback and canary
 * release, on ZooKeeper alone.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>A reader ({@link io.coord.config.LiveConfig}) applies a value only after it decoded
 *       strictly as the key's type and passed the key's validator; otherwise it keeps its last
 *       good value and reports a {@link io.coord.config.ConfigRejection}.</li>
 *   <li>Applied versions never go back: reads are ordered by mzxid (pure rule {@code VersionRule}).
 *       Intermediate versions may be skipped; the latest one is always reached.</li>
 *   <li>After a reconnect or a new session, a reader syncs and re-reads every node: nothing is
 *       assumed from before the disconnect. Every watch event is followed by a re-read.</li>
 *   <li>A writer ({@link io.coord.config.ConfigStore}) checks a value (size, type, validator)
 *       before sending it and publishes it in one transaction with its history entry, so readers
 *       never see a value that was not checked or that is missing from history.</li>
 *   <li>Canary membership is a stable hash of the instance id (pure rule {@code CanaryRule}).</li>
 * </ul>
 *
 * <h2>Node layout</h2>
 * <pre>
 * /config/{app}/{key}                          released value, JSON; znode version = config version
 * /config/{app}/.history/{key}/v-0000000007    last K published values (same transaction as the publish)
 * /config/{app}/.canary/{key}                  {"percent": 10.0, "value": ...}
 * /config-reports/{app}/{key}/{instanceId}     ephemeral: what that reader applied (root configurable)
 * </pre>
 * A whole-app reader reads only its type's keys: any other child of {@code /config/{app}} (a
 * typo'd key, another tool's node) is logged at WARN once, naming it, and {@code coord config ls
 * APP} lists every such node with why it is not a key.
 *
 * <p>Beside Curator (which has no config recipe): a key is a plain node holding JSON bytes, so a
 * {@code CuratorCache}, {@code NodeCache} or {@code SharedValue} reader sees the JSON and the
 * config version as the znode version. A value a Curator writer sets is applied when it is the
 * key's JSON and rejected otherwise (the last good value stays); such a write has no history entry,
 * so {@code history} and {@code rollback} do not know it.
 *
 * <p>With an {@link io.coord.AclPolicy} such as {@code rule("/config", anyone(READ), digest(configAdmin, ALL))}
 * only the config admin may write configuration, everyone may read it, and readers still write
 * their reports (outside {@code /config}).
 *
 * <h2>Failure semantics</h2>
 * <ul>
 *   <li><b>SUSPENDED</b>: readers keep serving the last good value and report stale; writers' calls
 *       wait within Curator's retry policy, then fail with {@code ConnectionLostException}
 *       (a publish is one transaction: all or nothing; a retried publish whose first answer was
 *       lost is recognised).</li>
 *   <li><b>RECONNECTED / new session after expiry (LOST)</b>: readers sync, re-read every node and
 *       set their watches again; report nodes are written again on the new session.</li>
 *   <li><b>Ensemble unreachable at start-up</b>: a reader opened from settings with a snapshot
 *       directory serves the snapshot (stale) until the live value arrives.</li>
 *   <li><b>Interrupt</b>: blocking calls throw {@code InterruptedException} and abandon the call;
 *       nothing is left half-written.</li>
 *   <li><b>Async writes</b> ({@code putAsync}, {@code compareAndSetAsync}): checks on the calling
 *       thread before anything is sent; the same one transaction, no thread parked per pending
 *       call; a lost answer is recognised, otherwise retried until the client's
 *       {@code requestTimeout} (on {@code nanoTime}), then {@code ConnectionLostException}; a
 *       lost compare-and-set is a {@code ConflictException} naming the current version. The
 *       future completes on the caller's executor (default {@code ForkJoinPool.commonPool()}),
 *       never on an event thread. Cancelled before its transaction was sent, a publish writes
 *       nothing and leaves no node (a key's first publish creates its directories inside the
 *       transaction); a transaction already sent commits whole or not at all.</li>
 * </ul>
 *
 * <p>Why {@link io.coord.config.ConfigValidationException} lives here, not in coord-core: it
 * carries the list of fields a value broke against its schema, a notion only this module has, and
 * a writer acts on it (fix the value) unlike on any other refusal. It is a
 * {@link io.coord.CoordException}, final (not retryable), so a caller that catches core's types
 * still catches it; a value that is not valid JSON at all is core's {@link io.coord.CodecException}.
 */
package io.coord.config;
