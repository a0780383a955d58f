/**
 * The {@code coord} command (picocli): {@link io.coord.cli.CoordCommand} is the root, with one
 * class per subcommand ({@code server}, {@code status}, {@code bench}); {@link io.coord.cli.Main}
 * is the jar's entry point, and the repository's {@code ./coord} script runs it. {@code coord ui}
 * ({@link io.coord.cli.WebConsole}) serves a read-only web console of a namespace: one page from
 * this jar's {@code io/coord/cli/ui/} resources and one JSON endpoint per tab, never a write.
 *
 * <p>Errors reach the user as one line on stderr ({@code coord <command>: <what went wrong>}) and
 * an exit code: 0 ok, 1 failed, 2 usage error, 3 ZooKeeper unreachable. Stack traces appear only
 * with {@code -Dcoord.debug=true} (or {@code COORD_DEBUG=1} through the launcher).
 */
package io.coord.cli;
