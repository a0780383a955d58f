package io.coord.cli.build;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link InternalsBoundaryTest} needs from one class file, read straight from the class file
 * format (JVMS chapter 4): no class is loaded, so a class whose optional dependency is absent
 * (coord-core's Micrometer binding) is read like any other.
 *
 * @param name       internal form, {@code io/coord/barrier/BarrierSeat}
 * @param access     the class's access flags
 * @param superName  internal form, null for {@code java/lang/Object}
 * @param interfaces internal forms
 * @param signature  the class's generic signature, or null
 * @param members    fields and methods
 * @param nested     this class's own entry in its InnerClasses attribute, or null if it is top level
 * @param utf8       every UTF-8 constant: class names, descriptors and signatures of every reference
 */
record ClassFile(String name, int access, String superName, List<String> interfaces, String signature,
        List<Member> members, Nested nested, List<String> utf8) {
    static final int ACC_PUBLIC = 0x0001;
    static final int ACC_PROTECTED = 0x0004;
    static final int ACC_SYNTHETIC = 0x1000;

    /**
     * One field or method.
     *
     * @param exceptions internal forms of a method's declared exceptions
     */
    record Member(String name, int access, String descriptor, String signature, List<String> exceptions) {
        boolean visibleOutsidePackage() {
            return (access & (ACC_PUBLIC | ACC_PROTECTED)) != 0 && (access & ACC_SYNTHETIC) == 0;
        }
    }

    /** A nested class as its InnerClasses entry declares it: its source access and its outer class (null: local or anonymous). */
    record Nested(int access, String outer) {
    }

    String dottedName() {
        return name.replace('/', '.');
    }

    static ClassFile parse(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file (bad magic)");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        Object[] pool = new Object[count]; // String for UTF-8, Integer (name index) for a Class entry
        List<String> utf8 = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> {
                    String s = in.readUTF();
                    pool[i] = s;
                    utf8.add(s);
                }
                case 7 -> pool[i] = in.readUnsignedShort(); // Class: name index
                case 8, 16, 19, 20 -> in.readUnsignedShort(); // String, MethodType, Module, Package
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt(); // Integer, Float, refs, NameAndType, (Invoke)Dynamic
                case 5, 6 -> { // Long, Double: two slots
                    in.readLong();
                    i++;
                }
                case 15 -> { // MethodHandle
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        int access = in.readUnsignedShort();
        String name = className(pool, in.readUnsignedShort());
        int superIndex = in.readUnsignedShort();
        String superName = superIndex == 0 ? null : className(pool, superIndex);
        List<String> interfaces = new ArrayList<>();
        for (int i = in.readUnsignedShort(); i > 0; i--) {
            interfaces.add(className(pool, in.readUnsignedShort()));
        }
        List<Member> members = new ArrayList<>();
        for (int kind = 0; kind < 2; kind++) { // fields, then methods: the same layout
            for (int i = in.readUnsignedShort(); i > 0; i--) {
                int memberAccess = in.readUnsignedShort();
                String memberName = (String) pool[in.readUnsignedShort()];
                String descriptor = (String) pool[in.readUnsignedShort()];
                String signature = null;
                List<String> exceptions = new ArrayList<>();
                for (int a = in.readUnsignedShort(); a > 0; a--) {
                    String attribute = (String) pool[in.readUnsignedShort()];
                    int length = in.readInt();
                    if (attribute.equals("Signature")) {
                        signature = (String) pool[in.readUnsignedShort()];
                    } else if (attribute.equals("Exceptions")) {
                        for (int e = in.readUnsignedShort(); e > 0; e--) {
                            exceptions.add(className(pool, in.readUnsignedShort()));
                        }
                    } else {
                        in.skipNBytes(length);
                    }
                }
                members.add(new Member(memberName, memberAccess, descriptor, signature, exceptions));
            }
        }
        String signature = null;
        Nested nested = null;
        for (int a = in.readUnsignedShort(); a > 0; a--) {
            String attribute = (String) pool[in.readUnsignedShort()];
            int length = in.readInt();
            if (attribute.equals("Signature")) {
                signature = (String) pool[in.readUnsignedShort()];
            } else if (attribute.equals("InnerClasses")) {
                for (int c = in.readUnsignedShort(); c > 0; c--) {
                    int inner = in.readUnsignedShort();
                    int outer = in.readUnsignedShort();
                    in.readUnsignedShort(); // simple name
                    int innerAccess = in.readUnsignedShort();
                    if (inner != 0 && className(pool, inner).equals(name)) {
                        nested = new Nested(innerAccess, outer == 0 ? null : className(pool, outer));
                    }
                }
            } else {
                in.skipNBytes(length);
            }
        }
        return new ClassFile(name, access, superName, List.copyOf(interfaces), signature, List.copyOf(members), nested,
                List.copyOf(utf8));
    }

    private static String className(Object[] pool, int classIndex) throws IOException {
        if (!(pool[classIndex] instanceof Integer nameIndex) || !(pool[nameIndex] instanceof String s)) {
            throw new IOException("constant pool entry " + classIndex + " is not a class");
        }
        return s;
    }
}
