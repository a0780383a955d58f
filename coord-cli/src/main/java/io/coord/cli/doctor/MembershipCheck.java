package io.coord.cli.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.CoordPath;
import io.coord.cli.doctor.Finding.Severity;
import io.coord.membership.Group;
import io.coord.membership.GroupOptions;
import io.coord.membership.MemberInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Membership flaps per member, as far as ZooKeeper keeps a trace. A member node records only its
 * current incarnation (its creation time and session), not how often it left and came back; so:
 * <ul>
 *   <li>{@code membership.recent-join} (INFO): a member whose current node is younger than
 *       {@link DoctorOptions#recentJoin()}: it joined, or rejoined after a flap, that recently (one
 *       read cannot tell which);</li>
 *   <li>{@code membership.flap} (WARNING): with {@link DoctorOptions#flapWatch()} set, the groups are
 *       watched that long and each member seen leaving and rejoining is reported with its count
 *       ({@link Group#flaps()}).</li>
 * </ul>
 */
final class MembershipCheck implements Check {
    static final CoordPath ROOT = Group.ROOT;

    @Override
    public String name() {
        return "membership";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        GroupOptions<JsonNode> options = GroupOptions.builder(JsonNode.class).maxMetadataBytes(1_000_000).build();
        Map<String, Group<JsonNode>> groups = new LinkedHashMap<>();
        try {
            for (String name : scan.children(ROOT)) {
                Group<JsonNode> g = Group.open(scan.client, name, options);
                groups.put(name, g);
                for (MemberInfo<JsonNode> m : g.view().members().values()) {
                    if (scan.age(m.joinedAt()).compareTo(scan.options.recentJoin()) < 0) {
                        findings.add(new Finding(Severity.INFO, "membership.recent-join", ROOT.child(name).child(m.id()).value(),
                                "current node created " + m.joinedAt() + " (" + Scan.human(scan.age(m.joinedAt())) + " ago, session "
                                        + m.sessionHex() + "): joined or rejoined within " + Scan.human(scan.options.recentJoin()),
                                "if it keeps showing up, it flaps: watch it with coord doctor --flap-watch or coord members ls --watch"));
                    }
                }
            }
            if (!scan.options.flapWatch().isZero() && !groups.isEmpty()) {
                Thread.sleep(scan.options.flapWatch().toMillis());
                groups.forEach((name, g) -> g.flaps().values().forEach(f -> findings.add(new Finding(Severity.WARNING,
                        "membership.flap", ROOT.child(name).child(f.memberId()).value(), "left and rejoined " + f.count()
                        + " time(s) during the " + Scan.human(scan.options.flapWatch()) + " watch, last at " + f.lastAt()
                        + " after " + f.lastDowntime().toMillis() + " ms away",
                        "its session keeps ending: look for GC pauses or network drops on that host, or a session timeout"
                                + " too short for it"))));
            }
        } finally {
            groups.values().forEach(Group::close);
        }
    }
}
