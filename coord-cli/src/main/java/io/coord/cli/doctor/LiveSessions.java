package io.coord.cli.doctor;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sessions that have a connection to some server right now, from every server's {@code cons}.
 * A session whose ephemeral nodes still exist but that no server has a connection for belongs to a
 * client that is gone (crashed, partitioned): the server keeps its nodes until the session expires.
 * Known only when every server of the connect string answered {@code cons}; otherwise
 * {@link #unknownBecause()} says why.
 */
final class LiveSessions {
    private static final Pattern SID = Pattern.compile("sid=0x([0-9a-fA-F]+)");

    private final Set<Long> connected;
    private final String unknownBecause;

    private LiveSessions(Set<Long> connected, String unknownBecause) {
        this.connected = connected;
        this.unknownBecause = unknownBecause;
    }

    static LiveSessions ask(String connectString, Duration timeout) {
        Set<Long> connected = new HashSet<>();
        for (String address : FourLetterWords.hosts(connectString)) {
            FourLetterWords.Answer a = FourLetterWords.ask(address, "cons", timeout);
            if (!a.ok()) {
                return new LiveSessions(Set.of(), address + ": " + a.error());
            }
            connected.addAll(parse(a.text()));
        }
        return new LiveSessions(connected, null);
    }

    static Set<Long> parse(String cons) {
        Set<Long> ids = new HashSet<>();
        Matcher m = SID.matcher(cons);
        while (m.find()) {
            ids.add(Long.parseUnsignedLong(m.group(1), 16));
        }
        return ids;
    }

    boolean known() {
        return unknownBecause == null;
    }

    String unknownBecause() {
        return unknownBecause;
    }

    boolean connected(long sessionId) {
        return connected.contains(sessionId);
    }
}
