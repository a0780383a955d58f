package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.InvalidNameException;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code coord services}: what is registered with Coord's discovery. */
@Command(name = "services", mixinStandardHelpOptions = true, description = "DNS-style service discovery (coord-naming).",
        subcommands = ServicesCommand.Ls.class)
final class ServicesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /** {@code coord services ls [NAME] [--json]}. */
    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = {"Lists the services at or below NAME (all without it) and their instances, in and out of service,"
                + " and the instance nodes Coord cannot decode (never resolved), by name with why.",
                "NAME is DNS-style, most specific label first: orders.payments.prod, or a domain such as payments.prod."})
    static final class Ls implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "a service or a domain")
        String name;

        @Option(names = "--json", description = "print one JSON object instead of text")
        boolean json;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            try (CoordClient client = connection.connect(spec); Discovery discovery = Discovery.open(client)) {
                List<String> services;
                try {
                    services = discovery.services(name);
                } catch (InvalidNameException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
                ObjectNode root = new ObjectMapper().createObjectNode();
                ArrayNode list = root.putArray("services");
                for (String service : services) {
                    List<Endpoint> instances = discovery.instances(service);
                    Map<String, String> undecodable = discovery.undecodable(service);
                    if (json) {
                        ObjectNode s = list.addObject();
                        s.put("name", service);
                        ArrayNode is = s.putArray("instances");
                        instances.forEach(e -> is.add(toJson(e)));
                        ObjectNode bad = s.putObject("undecodable");
                        undecodable.forEach(bad::put);
                    } else {
                        long up = instances.stream().filter(Endpoint::inService).count();
                        out.println(service + "  " + instances.size() + (instances.size() == 1 ? " instance" : " instances")
                                + ", " + up + " in service");
                        for (Endpoint e : instances) {
                            out.println("  " + e.id() + "  " + e.hostAndPort()
                                    + (e.tlsPort().isPresent() ? "  tls " + e.tlsPort().getAsInt() : "")
                                    + (e.zone() == null ? "" : "  zone " + e.zone()) + "  weight " + e.weight()
                                    + (e.inService() ? "" : "  OUT OF SERVICE"));
                        }
                        // Never resolved, so never counted above; named here so that nobody wonders where they went.
                        undecodable.forEach((id, why) -> out.println("  " + id + "  UNDECODABLE (not resolved): " + why));
                    }
                }
                if (json) {
                    out.println(root);
                } else if (services.isEmpty()) {
                    out.println(name == null ? "no services registered" : "no services at or below " + name);
                }
            }
            out.flush();
            return CoordCommand.OK;
        }

        private static ObjectNode toJson(Endpoint e) {
            ObjectNode n = new ObjectMapper().createObjectNode();
            n.put("id", e.id());
            n.put("address", e.address());
            n.put("port", e.port());
            if (e.tlsPort().isPresent()) {
                n.put("tlsPort", e.tlsPort().getAsInt());
            } else {
                n.putNull("tlsPort");
            }
            n.put("zone", e.zone());
            n.put("weight", e.weight());
            n.put("inService", e.inService());
            n.set("payload", e.payload());
            return n;
        }
    }
}
