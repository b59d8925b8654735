package io.floe.typed.protobuf;

import com.google.protobuf.AnyProto;
import com.google.protobuf.ApiProto;
import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.SourceContextProto;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.TypeProto;
import com.google.protobuf.WrappersProto;
import com.squareup.wire.Syntax;
import com.squareup.wire.schema.Field.Label;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.TypeElement;
import io.floe.typed.InvalidSchemaException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code .proto} text to a linked {@link FileDescriptor} without protoc: Wire's parser reads the
 * text, this class turns its elements into a {@link FileDescriptorProto} with type names as written
 * (protobuf-java resolves them by protoc's scoping rules when it links the file), and imports come
 * from the references or, for Google's well-known types, from protobuf-java itself.
 */
final class ProtoFiles {

  static final String ROOT_NAME = "floe_writer_schema.proto";

  private static final Map<String, FileDescriptor> WELL_KNOWN =
      Stream.of(
              AnyProto.getDescriptor(),
              ApiProto.getDescriptor(),
              DescriptorProtos.getDescriptor(),
              DurationProto.getDescriptor(),
              EmptyProto.getDescriptor(),
              FieldMaskProto.getDescriptor(),
              SourceContextProto.getDescriptor(),
              StructProto.getDescriptor(),
              TimestampProto.getDescriptor(),
              TypeProto.getDescriptor(),
              WrappersProto.getDescriptor())
          .collect(Collectors.toMap(FileDescriptor::getName, Function.identity()));

  private static final Set<String> SCALARS =
      Set.of(
          "double",
          "float",
          "int32",
          "int64",
          "uint32",
          "uint64",
          "sint32",
          "sint64",
          "fixed32",
          "fixed64",
          "sfixed32",
          "sfixed64",
          "bool",
          "string",
          "bytes");

  private final Map<String, String> references;
  private final Map<String, FileDescriptor> built = new HashMap<>();
  private final Set<String> building = new HashSet<>();

  private ProtoFiles(Map<String, String> references) {
    this.references = references;
  }

  /** The linked file of {@code text}, its imports resolved through {@code references}. */
  static FileDescriptor link(String text, Map<String, String> references)
      throws InvalidSchemaException {
    return new ProtoFiles(references).build(ROOT_NAME, text);
  }

  private FileDescriptor build(String name, String text) throws InvalidSchemaException {
    ProtoFileElement element;
    try {
      element = ProtoParser.Companion.parse(Location.get(name), text);
    } catch (RuntimeException e) {
      throw new InvalidSchemaException("not a .proto file (" + name + "): " + e.getMessage(), e);
    }
    building.add(name);
    List<String> imports = new ArrayList<>();
    imports.addAll(element.getImports());
    imports.addAll(element.getPublicImports());
    imports.addAll(element.getWeakImports());
    FileDescriptor[] dependencies = new FileDescriptor[imports.size()];
    for (int i = 0; i < dependencies.length; i++) {
      dependencies[i] = dependency(imports.get(i), name);
    }
    FileDescriptorProto proto = fileProto(name, element, imports);
    try {
      return FileDescriptor.buildFrom(proto, dependencies);
    } catch (DescriptorValidationException | RuntimeException e) {
      throw new InvalidSchemaException("invalid .proto file (" + name + "): " + e.getMessage(), e);
    } finally {
      building.remove(name);
    }
  }

  private FileDescriptor dependency(String name, String importer) throws InvalidSchemaException {
    FileDescriptor done = built.get(name);
    if (done != null) {
      return done;
    }
    String text = references.get(name);
    if (text == null) {
      FileDescriptor wellKnown = WELL_KNOWN.get(name);
      if (wellKnown == null) {
        throw new InvalidSchemaException(importer + " imports " + name + ", not in its references");
      }
      return wellKnown;
    }
    if (building.contains(name)) {
      throw new InvalidSchemaException("import cycle through " + name);
    }
    FileDescriptor file = build(name, text);
    built.put(name, file);
    return file;
  }

  private static FileDescriptorProto fileProto(
      String name, ProtoFileElement element, List<String> imports) throws InvalidSchemaException {
    boolean proto3 = element.getSyntax() == Syntax.PROTO_3;
    FileDescriptorProto.Builder file =
        FileDescriptorProto.newBuilder()
            .setName(name)
            .setSyntax(proto3 ? "proto3" : "proto2")
            .addAllDependency(imports);
    int publicStart = element.getImports().size();
    for (int i = 0; i < element.getPublicImports().size(); i++) {
      file.addPublicDependency(publicStart + i);
    }
    if (element.getPackageName() != null) {
      file.setPackage(element.getPackageName());
    }
    for (TypeElement type : element.getTypes()) {
      if (type instanceof MessageElement message) {
        file.addMessageType(message(message, proto3));
      } else if (type instanceof EnumElement enumElement) {
        file.addEnumType(enumType(enumElement));
      }
    }
    return file.build();
  }

  private static DescriptorProto message(MessageElement element, boolean proto3)
      throws InvalidSchemaException {
    if (!element.getGroups().isEmpty()) {
      throw new InvalidSchemaException("groups are not supported (in " + element.getName() + ")");
    }
    DescriptorProto.Builder message = DescriptorProto.newBuilder().setName(element.getName());
    // Nested messages and map entries in declaration order, as protoc numbers them (message
    // indexes of the wire format count them).
    List<Located> nested = new ArrayList<>();
    for (TypeElement type : element.getNestedTypes()) {
      if (type instanceof MessageElement child) {
        nested.add(new Located(child.getLocation(), message(child, proto3)));
      } else if (type instanceof EnumElement enumElement) {
        message.addEnumType(enumType(enumElement));
      }
    }
    List<FieldElement> all = new ArrayList<>(element.getFields());
    for (int i = 0; i < element.getOneOfs().size(); i++) {
      OneOfElement oneOf = element.getOneOfs().get(i);
      if (!oneOf.getGroups().isEmpty()) {
        throw new InvalidSchemaException("groups are not supported (in " + oneOf.getName() + ")");
      }
      message.addOneofDecl(OneofDescriptorProto.newBuilder().setName(oneOf.getName()));
      all.addAll(oneOf.getFields());
    }
    all.sort(Comparator.comparing(FieldElement::getLocation, Located.ORDER));
    List<String> synthetic = new ArrayList<>();
    for (FieldElement field : all) {
      FieldDescriptorProto.Builder proto = field(field);
      int oneOf = oneOfIndex(element, field);
      if (oneOf >= 0) {
        proto.setOneofIndex(oneOf);
      } else if (proto3 && field.getLabel() == Label.OPTIONAL) {
        proto.setProto3Optional(true);
        proto.setOneofIndex(element.getOneOfs().size() + synthetic.size());
        synthetic.add(syntheticOneOfName(field.getName(), element));
      }
      String type = field.getType();
      if (type.startsWith("map<")) {
        DescriptorProto entry = mapEntry(field, type);
        nested.add(new Located(field.getLocation(), entry));
        proto.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).setTypeName(entry.getName());
      }
      message.addField(proto);
    }
    for (String name : synthetic) {
      message.addOneofDecl(OneofDescriptorProto.newBuilder().setName(name));
    }
    nested.sort(Comparator.comparing(Located::location, Located.ORDER));
    nested.forEach(n -> message.addNestedType(n.message()));
    return message.build();
  }

  private static int oneOfIndex(MessageElement element, FieldElement field) {
    for (int i = 0; i < element.getOneOfs().size(); i++) {
      if (element.getOneOfs().get(i).getFields().contains(field)) {
        return i;
      }
    }
    return -1;
  }

  private static String syntheticOneOfName(String fieldName, MessageElement element) {
    String name = "_" + fieldName;
    Set<String> taken = new HashSet<>();
    element.getFields().forEach(f -> taken.add(f.getName()));
    element.getOneOfs().forEach(o -> taken.add(o.getName()));
    while (taken.contains(name)) {
      name = "X" + name;
    }
    return name;
  }

  private static FieldDescriptorProto.Builder field(FieldElement element) {
    FieldDescriptorProto.Builder field =
        FieldDescriptorProto.newBuilder().setName(element.getName()).setNumber(element.getTag());
    Label label = element.getLabel();
    field.setLabel(
        label == Label.REPEATED
            ? FieldDescriptorProto.Label.LABEL_REPEATED
            : label == Label.REQUIRED
                ? FieldDescriptorProto.Label.LABEL_REQUIRED
                : FieldDescriptorProto.Label.LABEL_OPTIONAL);
    setType(field, element.getType());
    for (OptionElement option : element.getOptions()) {
      if (!option.isParenthesized() && option.getName().equals("packed")) {
        field
            .getOptionsBuilder()
            .setPacked(Boolean.parseBoolean(String.valueOf(option.getValue())));
      }
    }
    return field;
  }

  private static void setType(FieldDescriptorProto.Builder field, String type) {
    if (SCALARS.contains(type)) {
      field.setType(FieldDescriptorProto.Type.valueOf("TYPE_" + type.toUpperCase(Locale.ROOT)));
    } else if (!type.startsWith("map<")) {
      field.setTypeName(type);
    }
  }

  private static DescriptorProto mapEntry(FieldElement field, String type)
      throws InvalidSchemaException {
    int comma = type.indexOf(',');
    if (comma < 0 || !type.endsWith(">")) {
      throw new InvalidSchemaException("bad map type " + type + " of field " + field.getName());
    }
    FieldDescriptorProto.Builder key =
        FieldDescriptorProto.newBuilder()
            .setName("key")
            .setNumber(1)
            .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
    setType(key, type.substring(4, comma).trim());
    FieldDescriptorProto.Builder value =
        FieldDescriptorProto.newBuilder()
            .setName("value")
            .setNumber(2)
            .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
    setType(value, type.substring(comma + 1, type.length() - 1).trim());
    DescriptorProto.Builder entry =
        DescriptorProto.newBuilder()
            .setName(entryName(field.getName()))
            .addField(key)
            .addField(value);
    entry.getOptionsBuilder().setMapEntry(true);
    return entry.build();
  }

  /** protoc's name of a map field's entry message: the field name in CamelCase, then "Entry". */
  private static String entryName(String fieldName) {
    StringBuilder name = new StringBuilder();
    boolean upper = true;
    for (char c : fieldName.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        name.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return name.append("Entry").toString();
  }

  private static EnumDescriptorProto enumType(EnumElement element) {
    EnumDescriptorProto.Builder enumType =
        EnumDescriptorProto.newBuilder().setName(element.getName());
    for (EnumConstantElement constant : element.getConstants()) {
      enumType.addValue(
          EnumValueDescriptorProto.newBuilder()
              .setName(constant.getName())
              .setNumber(constant.getTag()));
    }
    for (OptionElement option : element.getOptions()) {
      if (!option.isParenthesized() && option.getName().equals("allow_alias")) {
        enumType
            .getOptionsBuilder()
            .setAllowAlias(Boolean.parseBoolean(String.valueOf(option.getValue())));
      }
    }
    return enumType.build();
  }

  private record Located(Location location, DescriptorProto message) {
    static final Comparator<Location> ORDER =
        Comparator.comparingInt(Location::getLine).thenComparingInt(Location::getColumn);
  }
}
