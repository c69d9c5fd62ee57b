import type * as TS from 'typescript';
import type { JsonSchema } from './json-schema.js';

/** Where a type was met, so a warning can name the file, the handler and the type. */
export interface TypeSite {
  readonly file: string;
  readonly handler: string;
  /** `parameter id`, `return type`, … */
  readonly role: string;
}

/**
 * Turns checker types into JSON Schema 2020-12. Named object types (interfaces, classes, aliases of
 * object or union types, enums) become entries of `schemas`, referenced with `$ref`, which is also
 * how recursive types end; everything else is written inline. A type JSON Schema cannot express (a
 * function, a conditional type, an unresolved type parameter, a Map) is `{}` plus a warning.
 */
export class SchemaWriter {
  readonly schemas: Record<string, JsonSchema> = {};
  readonly warnings: string[] = [];
  /** Whether a type met was one the checker could not resolve (a name no declaration in the program gives). */
  metUnresolved = false;
  readonly #ts: typeof TS;
  readonly #checker: TS.TypeChecker;
  readonly #refPrefix: string;
  /** Component names by type, so one type is one component however often it is met. */
  readonly #names = new Map<TS.Type, string>();
  #site: TypeSite = { file: '', handler: '', role: '' };
  /** Property names from the site's type down to the type being written, for warnings. */
  readonly #path: string[] = [];

  readonly #reserved: ReadonlySet<string>;

  constructor(
    ts: typeof TS,
    checker: TS.TypeChecker,
    refPrefix = '#/components/schemas/',
    reserved: readonly string[] = [],
  ) {
    this.#reserved = new Set(reserved);
    this.#ts = ts;
    this.#checker = checker;
    this.#refPrefix = refPrefix;
  }

  /** The schema of `type`, met at `site` (named in warnings). */
  schemaOf(type: TS.Type, site: TypeSite): JsonSchema {
    this.#site = site;
    return this.#schema(type, 0);
  }

  /**
   * `T | undefined` as `T`, keeping the identity (and so the name) of an aliased T; other types as
   * they are. Optional properties and parameters have `undefined` in their type; JSON does not.
   */
  withoutUndefined(type: TS.Type): TS.Type {
    const ts = this.#ts;
    if (!(type.flags & ts.TypeFlags.Union)) return type;
    const members = (type as TS.UnionType).types;
    if (!members.some((member) => member.flags & ts.TypeFlags.Undefined)) return type;
    if (members.some((member) => member.flags & ts.TypeFlags.Null)) return type;
    return this.#checker.getNonNullableType(type);
  }

  /** A description from a symbol's doc comment, if it has one. */
  describe(symbol: TS.Symbol | undefined): string | undefined {
    if (!symbol) return undefined;
    const text = this.#ts.displayPartsToString(symbol.getDocumentationComment(this.#checker)).trim();
    return text === '' ? undefined : text;
  }

  #warn(type: TS.Type, why: string): JsonSchema {
    const { file, handler, role } = this.#site;
    const at = this.#path.length > 0 ? ` at ${this.#path.join('.')}` : '';
    this.warnings.push(
      `${file} ${handler}: ${role}${at}, '${this.#checker.typeToString(type)}' cannot be expressed in JSON Schema (${why}); documented as {}`,
    );
    return {};
  }

  #schema(type: TS.Type, depth: number): JsonSchema {
    const ts = this.#ts;
    const flags = type.flags;
    // Anonymous types nest only as deep as the source writes them; this guards a pathological alias.
    if (depth > 64) return this.#warn(type, 'nested more than 64 levels');
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
      // The checker's error type is an `any` by this name.
      if ((type as { intrinsicName?: string }).intrinsicName === 'error') this.metUnresolved = true;
      return {};
    }
    if (flags & ts.TypeFlags.Never) return { not: {} };
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    if (flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void))
      return this.#warn(type, 'JSON has no undefined');
    if (flags & ts.TypeFlags.StringLiteral)
      return { type: 'string', const: (type as TS.StringLiteralType).value };
    if (flags & ts.TypeFlags.NumberLiteral)
      return { type: 'number', const: (type as TS.NumberLiteralType).value };
    if (flags & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', const: this.#isTrue(type) };
    if (flags & ts.TypeFlags.EnumLiteral && !(flags & ts.TypeFlags.Union)) return this.#literal(type);
    if (flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping))
      return { type: 'string' };
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    // The framework renders a BigInt as its decimal string.
    if (flags & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral))
      return { type: 'string', pattern: '^-?[0-9]+$' };
    if (flags & ts.TypeFlags.ESSymbol || flags & ts.TypeFlags.UniqueESSymbol)
      return this.#warn(type, 'a symbol');
    if (flags & ts.TypeFlags.Conditional) return this.#warn(type, 'a conditional type');
    if (flags & ts.TypeFlags.TypeParameter) return this.#warn(type, 'an unresolved type parameter');
    if (flags & (ts.TypeFlags.Index | ts.TypeFlags.IndexedAccess | ts.TypeFlags.Substitution))
      return this.#warn(type, 'an unresolved type operator');
    if (flags & ts.TypeFlags.NonPrimitive) return { type: 'object' };
    if (flags & ts.TypeFlags.Union) return this.#named(type, () => this.#union(type as TS.UnionType, depth));
    if (flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.#object(type, depth);
    return this.#warn(type, 'an unsupported kind of type');
  }

  #isTrue(type: TS.Type): boolean {
    return (type as { intrinsicName?: string }).intrinsicName === 'true';
  }

  #literal(type: TS.Type): JsonSchema {
    const value = (type as TS.LiteralType).value;
    return typeof value === 'string' ? { type: 'string', const: value } : { type: 'number', const: value };
  }

  /** A literal's value, or undefined when the type is not a literal. */
  #literalValue(type: TS.Type): string | number | boolean | null | undefined {
    const ts = this.#ts;
    if (type.flags & ts.TypeFlags.Null) return null;
    if (type.flags & ts.TypeFlags.BooleanLiteral) return this.#isTrue(type);
    if (type.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral))
      return (type as TS.LiteralType).value as string | number;
    return undefined;
  }

  /**
   * Literals (and null) become one `enum`; `true | false` is `boolean`; `T | null` with a simple T
   * is `type: [T, 'null']`; anything else is `anyOf`. `undefined` members are dropped: optionality
   * is the property's (or the parameter's) business.
   */
  #union(type: TS.UnionType, depth: number): JsonSchema {
    const ts = this.#ts;
    let members = type.types.filter(
      (member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)),
    );
    const hasTrue = members.some(
      (member) => member.flags & ts.TypeFlags.BooleanLiteral && this.#isTrue(member),
    );
    const hasFalse = members.some(
      (member) => member.flags & ts.TypeFlags.BooleanLiteral && !this.#isTrue(member),
    );
    const booleans = hasTrue && hasFalse;
    if (booleans) members = members.filter((member) => !(member.flags & ts.TypeFlags.BooleanLiteral));
    const literals = members.map((member) => this.#literalValue(member));
    if (!booleans && members.length > 0 && literals.every((value) => value !== undefined)) {
      const types = [...new Set(literals.map((value) => (value === null ? 'null' : typeof value)))];
      return { type: types.length === 1 ? types[0] : types, enum: literals };
    }
    const schemas = members.map((member) => this.#schema(member, depth + 1));
    if (booleans) schemas.push({ type: 'boolean' });
    if (schemas.length === 1) return schemas[0] as JsonSchema;
    const simple = schemas.every(
      (schema) => Object.keys(schema).length === 1 && typeof schema.type === 'string',
    );
    if (simple) return { type: [...new Set(schemas.map((schema) => schema.type as string))] };
    return { anyOf: schemas };
  }

  #object(type: TS.Type, depth: number): JsonSchema {
    const ts = this.#ts;
    const checker = this.#checker;
    const symbol = type.getSymbol();
    const name = symbol?.getName();
    if (name === 'Date' && this.#fromLibrary(symbol)) return { type: 'string', format: 'date-time' };
    if (
      this.#fromLibrary(symbol) &&
      (name === 'Uint8Array' ||
        name === 'Buffer' ||
        name === 'ArrayBuffer' ||
        name === 'Blob' ||
        name === 'File')
    )
      return { type: 'string', format: 'binary' };
    // JSON.stringify writes what toJSON returns (a URL, a money class): that is the schema.
    const toJson = type.getProperty('toJSON');
    const signature = toJson && checker.getTypeOfSymbol(toJson).getCallSignatures()[0];
    if (signature) return this.#schema(signature.getReturnType(), depth + 1);
    if (checker.isArrayType(type)) {
      const [item] = checker.getTypeArguments(type as TS.TypeReference);
      return { type: 'array', items: item ? this.#item(item, depth + 1) : {} };
    }
    if (checker.isTupleType(type)) return this.#tuple(type as TS.TypeReference, depth);
    if (this.#fromLibrary(symbol) && (name === 'Map' || name === 'ReadonlyMap'))
      return this.#map(type as TS.TypeReference, depth);
    // The framework renders a Set as the array of its items.
    if (this.#fromLibrary(symbol) && (name === 'Set' || name === 'ReadonlySet')) {
      const [item] = checker.getTypeArguments(type as TS.TypeReference);
      return { type: 'array', items: item ? this.#item(item, depth + 1) : {} };
    }
    if (this.#fromLibrary(symbol) && (name === 'WeakMap' || name === 'WeakSet' || name === 'Promise'))
      return this.#warn(type, `a ${name}`);
    const properties = checker.getPropertiesOfType(type).filter((property) => this.#inJson(property));
    const indexes = checker.getIndexInfosOfType(type);
    if (type.getCallSignatures().length > 0 && properties.length === 0) return this.#warn(type, 'a function');
    return this.#named(type, () => {
      const schema: JsonSchema = { type: 'object' };
      const props: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const property of properties) {
        const propertyType = checker.getTypeOfSymbol(property);
        this.#path.push(property.getName());
        const propertySchema = this.#schema(this.withoutUndefined(propertyType), depth + 1);
        this.#path.pop();
        const description = this.describe(property);
        props[property.getName()] = description ? { ...propertySchema, description } : propertySchema;
        // `any` and `unknown` include undefined too, which JSON drops with its key.
        const optional =
          (property.flags & ts.SymbolFlags.Optional) !== 0 ||
          (propertyType.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0 ||
          ((propertyType.flags & ts.TypeFlags.Union) !== 0 &&
            (propertyType as TS.UnionType).types.some((member) => member.flags & ts.TypeFlags.Undefined));
        if (!optional) required.push(property.getName());
      }
      if (properties.length > 0) schema.properties = props;
      if (required.length > 0) schema.required = required;
      const stringIndex = indexes.find(
        (info) => info.keyType.flags & (ts.TypeFlags.String | ts.TypeFlags.Number),
      );
      if (stringIndex) schema.additionalProperties = this.#schema(stringIndex.type, depth + 1);
      return schema;
    });
  }

  /**
   * The framework renders a Map as the object of its entries (`Object.fromEntries`): keys that are
   * strings or numbers become property names, other keys cannot be told apart in it.
   */
  #map(type: TS.TypeReference, depth: number): JsonSchema {
    const ts = this.#ts;
    const [key, value] = this.#checker.getTypeArguments(type);
    const keyLike = ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike;
    const keys = key && key.flags & ts.TypeFlags.Union ? (key as TS.UnionType).types : key ? [key] : [];
    if (keys.length === 0 || !keys.every((member) => member.flags & keyLike))
      return this.#warn(type, 'a Map whose keys are not strings or numbers');
    return {
      type: 'object',
      additionalProperties: value ? this.#schema(this.withoutUndefined(value), depth + 1) : {},
    };
  }

  /**
   * Whether JSON.stringify writes a property: not a method, not one that can only be undefined, not
   * a `#private` field, and not a class's getter or setter (those live on the prototype, and JSON
   * takes own properties only).
   */
  #inJson(property: TS.Symbol): boolean {
    const ts = this.#ts;
    if (property.flags & ts.SymbolFlags.Method) return false;
    if (this.#checker.getTypeOfSymbol(property).flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void))
      return false;
    const declarations = property.declarations ?? [];
    if (declarations.some((node) => ts.isPropertyDeclaration(node) && ts.isPrivateIdentifier(node.name)))
      return false;
    const classAccessor = (node: TS.Declaration) =>
      (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isClassLike(node.parent);
    return !(declarations.length > 0 && declarations.every(classAccessor));
  }

  /**
   * An array item or tuple element: JSON.stringify writes an undefined one as null, so `undefined`
   * there is `null` (`(T | undefined)[]` is T or null), where a property would be left out instead.
   */
  #item(type: TS.Type, depth: number): JsonSchema {
    const ts = this.#ts;
    const undefinedOrVoid = ts.TypeFlags.Undefined | ts.TypeFlags.Void;
    if (type.flags & undefinedOrVoid) return { type: 'null' };
    const mayBeUndefined =
      (type.flags & ts.TypeFlags.Union) !== 0 &&
      (type as TS.UnionType).types.some((member) => member.flags & undefinedOrVoid);
    const schema = this.#schema(type, depth);
    if (!mayBeUndefined) return schema;
    if (typeof schema.type === 'string' && Object.keys(schema).length === 1)
      return { type: [schema.type, 'null'] };
    if (Array.isArray(schema.type) && Object.keys(schema).length === 1)
      return { type: [...new Set([...schema.type, 'null'])] };
    if (Array.isArray(schema.enum)) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      return {
        ...schema,
        type: [...new Set([...types, 'null'])],
        enum: [...new Set([...schema.enum, null])],
      };
    }
    return { anyOf: [schema, { type: 'null' }] };
  }

  #tuple(type: TS.TypeReference, depth: number): JsonSchema {
    const target = type.target as TS.TupleType;
    const elements = this.#checker.getTypeArguments(type);
    const fixed = target.elementFlags.filter((flag) => !(flag & this.#ts.ElementFlags.Variable)).length;
    const prefixItems = elements.slice(0, fixed).map((element) => this.#item(element, depth + 1));
    const minItems = target.elementFlags.filter((flag) => flag & this.#ts.ElementFlags.Required).length;
    const rest = fixed < elements.length ? elements[fixed] : undefined;
    const schema: JsonSchema = { type: 'array', prefixItems, minItems };
    if (rest) schema.items = this.#item(rest, depth + 1);
    else {
      schema.items = false;
      schema.maxItems = fixed;
    }
    return schema;
  }

  /** Whether a symbol is declared by TypeScript's own lib files or @types/node (a built-in). */
  #fromLibrary(symbol: TS.Symbol | undefined): boolean {
    const file = symbol?.declarations?.[0]?.getSourceFile().fileName ?? '';
    return /\/typescript\/lib\/lib\.|\/@types\/node\//.test(file);
  }

  /**
   * For a named type (an interface, a class, an enum, or an alias of an object or union type), a
   * `$ref` to its component, written on first use; for an anonymous one, the schema itself.
   */
  #named(type: TS.Type, build: () => JsonSchema): JsonSchema {
    const known = this.#names.get(type);
    if (known !== undefined) return { $ref: `${this.#refPrefix}${known}` };
    const name = this.#componentName(type);
    if (name === undefined) return build();
    const ref = { $ref: `${this.#refPrefix}${name}` };
    this.#names.set(type, name);
    // Claimed before building, so a recursive reference finds the name and stops there.
    this.schemas[name] = {};
    const schema = build();
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const description = this.describe(symbol);
    this.schemas[name] =
      description && schema.description === undefined ? { ...schema, description } : schema;
    return ref;
  }

  #componentName(type: TS.Type): string | undefined {
    const ts = this.#ts;
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (!symbol || this.#fromLibrary(symbol)) return undefined;
    const declared =
      type.aliasSymbol !== undefined ||
      (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.Enum)) !== 0;
    if (!declared || symbol.getName().startsWith('__')) return undefined;
    const args = type.aliasSymbol ? type.aliasTypeArguments : (type as TS.TypeReference).typeArguments;
    const base = symbol.getName() + (args ?? []).map((arg) => `_${this.#checker.typeToString(arg)}`).join('');
    const clean = base.replace(/[^A-Za-z0-9._-]+/g, '_');
    let name = clean;
    const taken = new Set([...this.#reserved, ...this.#names.values()]);
    for (let suffix = 2; taken.has(name); suffix += 1) name = `${clean}${suffix}`;
    return name;
  }
}
