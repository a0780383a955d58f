package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything {@code coord status} found out, rendered as text or as one JSON object. Session fields
 * are null when no session could be made; {@code error} then says why.
 *
 * @param connect            the connect string asked about
 * @param servers            one report per member, in connect-string order
 * @param sessionId          this client's session id ({@code 0x...})
 * @param connectedTo        the member the session is connected to, if known
 * @param requestedTimeoutMs the session timeout this client asked for
 * @param negotiatedTimeoutMs the session timeout the server granted
 * @param identity           the identity this client presented ({@code digest:alice}, or {@code anonymous})
 * @param serverIdentities   the identities the server attached to the session ({@code whoami}), null if unknown
 * @param error              why the status is incomplete, or null
 */
record StatusReport(String connect, List<ServerReport> servers, String sessionId, String connectedTo, Long requestedTimeoutMs,
                    Long negotiatedTimeoutMs, String identity, List<String> serverIdentities, String error) {
    private static final ObjectMapper JSON = new ObjectMapper();

    static StatusReport failed(String connect, List<ServerReport> servers, String error) {
        return new StatusReport(connect, servers, null, null, null, null, null, null, error);
    }

    List<String> text() {
        List<String> lines = new ArrayList<>();
        lines.add("ensemble  " + connect);
        int width = servers.stream().mapToInt(s -> s.address().length()).max().orElse(0);
        int modeWidth = servers.stream().filter(s -> s.mode() != null).mapToInt(s -> s.mode().length()).max().orElse(0);
        for (ServerReport s : servers) {
            String what;
            if (!s.reachable()) {
                what = "unreachable: " + s.note();
            } else if (s.mode() == null) {
                what = "reachable; " + s.note();
            } else {
                what = s.mode() + " ".repeat(modeWidth - s.mode().length()) + "  ZooKeeper "
                        + (s.version() == null ? "(version unknown)" : s.version());
            }
            lines.add("server    " + s.address() + " ".repeat(width - s.address().length()) + "  " + what);
        }
        if (sessionId != null) {
            lines.add("session   " + sessionId + (connectedTo == null ? "" : " (connected to " + connectedTo + ")"));
            String clamp = requestedTimeoutMs.equals(negotiatedTimeoutMs) ? ""
                    : " (the server clamped it: servers allow 2..20 x their tickTime)";
            lines.add("timeout   requested " + requestedTimeoutMs + " ms, negotiated " + negotiatedTimeoutMs + " ms" + clamp);
            lines.add("identity  " + identity + (serverIdentities == null || serverIdentities.isEmpty() ? ""
                    : " (the server sees: " + String.join(", ", serverIdentities) + ")"));
        }
        return lines;
    }

    String json() {
        ObjectNode o = JSON.createObjectNode();
        o.put("connect", connect);
        o.put("ok", error == null);
        o.put("error", error);
        ArrayNode list = o.putArray("servers");
        for (ServerReport s : servers) {
            ObjectNode n = list.addObject();
            n.put("address", s.address());
            n.put("reachable", s.reachable());
            n.put("mode", s.mode());
            n.put("version", s.version());
            n.put("note", s.note());
        }
        o.put("sessionId", sessionId);
        o.put("connectedTo", connectedTo);
        o.put("requestedSessionTimeoutMs", requestedTimeoutMs);
        o.put("negotiatedSessionTimeoutMs", negotiatedTimeoutMs);
        o.put("identity", identity);
        if (serverIdentities == null) {
            o.putNull("serverIdentities");
        } else {
            ArrayNode ids = o.putArray("serverIdentities");
            serverIdentities.forEach(ids::add);
        }
        return o.toString();
    }
}
