package io.coord.cli.doctor;

import io.coord.AclPolicy;
import io.coord.CoordPath;
import io.coord.cli.doctor.Finding.Severity;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

/**
 * Every node of every recipe tree ({@link #ROOTS}) against the ACL the client's {@link AclPolicy}
 * gives its path: a node created by another tool, by hand, or by a client with another policy is a
 * WARNING naming the node, its ACL and the policy's (at most {@link #MAX_REPORTED} per tree, then a
 * count).
 */
final class AclCheck implements Check {
    static final List<CoordPath> ROOTS = List.of("/locks", "/queues", "/elections", "/groups", "/barriers", "/config",
            "/config-reports", "/ids", "/names", "/services").stream().map(CoordPath::of).toList();
    static final int MAX_REPORTED = 20;

    @Override
    public String name() {
        return "acl";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        AclPolicy policy = scan.client.settings().aclPolicy();
        for (CoordPath root : ROOTS) {
            int outside = 0;
            Deque<CoordPath> todo = new ArrayDeque<>();
            if (scan.stat(root).isPresent()) {
                todo.push(root);
            }
            while (!todo.isEmpty()) {
                CoordPath path = todo.pop();
                List<ACL> actual = acl(scan, path);
                if (actual == null) {
                    continue; // gone meanwhile
                }
                List<ACL> expected = policy.aclFor(path);
                if (actual.size() != expected.size() || !new HashSet<>(actual).equals(new HashSet<>(expected))) {
                    if (++outside <= MAX_REPORTED) {
                        findings.add(new Finding(Severity.WARNING, "acl.outside-policy", path.value(), "ACL " + show(actual)
                                + ", the client's policy gives " + show(expected),
                                "set it with setAcl (or delete and let the recipe re-create it), or change the policy if the"
                                        + " node is right"));
                    }
                }
                scan.children(path).forEach(c -> todo.push(path.child(c)));
            }
            if (outside > MAX_REPORTED) {
                findings.add(new Finding(Severity.WARNING, "acl.outside-policy", root.value(), (outside - MAX_REPORTED)
                        + " more node(s) under it outside the policy", "as above"));
            }
        }
    }

    private static List<ACL> acl(Scan scan, CoordPath path) throws InterruptedException {
        try {
            return scan.curator().getACL().forPath(path.value());
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new io.coord.CoordException("could not read the ACL of " + path + ": " + Doctor.oneLine(e), e);
        }
    }

    static String show(List<ACL> acl) {
        return acl.stream().map(a -> a.getId().getScheme() + ":" + a.getId().getId() + ":" + perms(a.getPerms())).toList().toString();
    }

    private static String perms(int p) {
        StringBuilder b = new StringBuilder();
        String letters = "rwcda";
        for (int i = 0; i < letters.length(); i++) {
            if ((p & (1 << i)) != 0) {
                b.append(letters.charAt(i));
            }
        }
        return b.toString();
    }
}
