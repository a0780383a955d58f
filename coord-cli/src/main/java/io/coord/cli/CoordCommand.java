package io.coord.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The root {@code coord} command; without a subcommand it prints its usage. */
@Command(name = "coord", mixinStandardHelpOptions = true, versionProvider = CoordCommand.Version.class,
        description = "Coord: ZooKeeper coordination recipes on Apache Curator.",
        subcommands = {ServerCommand.class, StatusCommand.class, BenchCommand.class, IdsCommand.class, ServicesCommand.class, DoctorCommand.class,
            LeaderCommand.class, MembersCommand.class, QueueCommand.class, LockCommand.class, BarrierCommand.class, ConfigCommand.class, UiCommand.class,
            io.coord.cli.demo.DemoCommand.class, ChaosCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 ok, 1 failed, 2 usage error, 3 ZooKeeper unreachable."})
public final class CoordCommand implements Callable<Integer> {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final int UNAVAILABLE = 3;
    static final int INTERRUPTED = 130;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    /** {@code coord --version}: this build and the client libraries it carries. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String own = CoordCommand.class.getPackage().getImplementationVersion();
            return new String[] {
                "coord " + (own == null ? "(development build)" : own),
                "ZooKeeper client " + org.apache.zookeeper.Version.getFullVersion().split(",")[0].trim().replaceFirst("-[0-9a-f]{40}$", ""),
                "Curator " + mavenVersion("org.apache.curator", "curator-framework"),
                "Java " + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }

        private static String mavenVersion(String group, String artifact) {
            try (InputStream in = CoordCommand.class.getResourceAsStream("/META-INF/maven/" + group + "/" + artifact + "/pom.properties")) {
                if (in == null) {
                    return "unknown";
                }
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            } catch (IOException e) {
                return "unknown";
            }
        }
    }
}
