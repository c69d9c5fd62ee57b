import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, resolve } from 'node:path';
import type * as TS from 'typescript';
import { EndpointsError } from '../errors.js';
import type { JsonSchema } from './json-schema.js';
import { SchemaWriter } from './schema-of-type.js';

/** One handler to read: the export of a module (a controller class) and one of its methods. */
export interface HandlerRef {
  /** The controller module, absolute. A compiled `.js` module is read from its `.ts` beside it. */
  readonly file: string;
  readonly exportName: string;
  readonly method: string;
}

export interface ParameterType {
  readonly schema: JsonSchema;
  readonly description?: string;
}

/** What the compiler knows of one handler. */
export interface HandlerTypes {
  /** Positional parameters, in order (undefined where the handler has none at that place). */
  readonly positionals: readonly (ParameterType | undefined)[];
  /** Keywords: the properties of a destructured object parameter, by name. */
  readonly keywords: ReadonlyMap<string, ParameterType>;
  /** The body's schema (Promise unwrapped); null when the handler returns nothing. */
  readonly returns: JsonSchema | null;
}

export interface TypeExtraction {
  /** By `handlerKey(ref)`; handlers the compiler could not find are absent (and warned about). */
  readonly handlers: ReadonlyMap<string, HandlerTypes>;
  /** Named types, for `components/schemas`. */
  readonly schemas: Readonly<Record<string, JsonSchema>>;
  /** Types that could not be expressed, and handlers that could not be found; one line each. */
  readonly warnings: readonly string[];
}

export const handlerKey = (ref: HandlerRef) => `${ref.file}#${ref.exportName}.${ref.method}`;

export interface ExtractOptions {
  /** The tsconfig.json whose compiler options read the controllers. */
  readonly project: string;
  /** Where warnings' file names are relative to. */
  readonly cwd: string;
  /** Where `$ref`s point (default `#/components/schemas/`). */
  readonly refPrefix?: string;
  /** Names the types must not take (the document's own schemas, e.g. `Error`); they get a suffix. */
  readonly reservedNames?: readonly string[];
}

let typescript: typeof TS | undefined;

/** TypeScript is loaded on first use: an application that never asks for types never pays for it. */
function loadTypeScript(): typeof TS {
  typescript ??= createRequire(import.meta.url)('typescript') as typeof TS;
  return typescript;
}

function readConfig(ts: typeof TS, project: string): TS.CompilerOptions {
  if (!existsSync(project)) {
    throw new EndpointsError('INVALID_OPTION', `project: no tsconfig at ${project}`);
  }
  const host: TS.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new EndpointsError(
        'INVALID_OPTION',
        `project ${project}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
      );
    },
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(project, {}, host);
  if (!parsed) throw new EndpointsError('INVALID_OPTION', `project: cannot read ${project}`);
  // Only types are read: nothing is emitted, and a project that does not compile cleanly still works.
  return { ...parsed.options, noEmit: true };
}

/** `users.js` compiled next to `users.ts`, or the TypeScript source itself. */
function sourceOf(file: string): string {
  if (/\.[cm]?tsx?$/.test(file)) return file;
  const ts = file.replace(/\.([cm]?)jsx?$/, '.$1ts');
  return existsSync(ts) ? ts : file;
}

/**
 * Reads the handlers' parameter and return types through the TypeScript compiler: one program whose
 * roots are the controller modules (their imports come along), one checker, one schema writer, so a
 * type used by many handlers is one component.
 *
 * The tsconfig's `types` packages are global declarations (`types: ["node"]` brings 2.3 MB, most of a
 * server's program and of its parse time) that handlers' types seldom name. So the program is built
 * first without them; only when that leaves something unresolved (an import such as `node:fs`, a
 * global such as `Buffer` met in a handler's type, a handler not found) is it built again with them.
 * Names that resolve without those packages mean the same with them, so the document is the same.
 */
export function extractTypes(refs: readonly HandlerRef[], options: ExtractOptions): TypeExtraction {
  const ts = loadTypeScript();
  const project = resolve(options.cwd, options.project);
  const compilerOptions = readConfig(ts, project);
  if (compilerOptions.types?.length !== 0) {
    const lean = readHandlers(ts, refs, { ...compilerOptions, types: [] }, options);
    if (lean) return lean;
  }
  return readHandlers(ts, refs, compilerOptions, options) as TypeExtraction;
}

/** The extraction over one program; undefined when `compilerOptions` is a lean pass that left something unresolved. */
function readHandlers(
  ts: typeof TS,
  refs: readonly HandlerRef[],
  compilerOptions: TS.CompilerOptions,
  options: ExtractOptions,
): TypeExtraction | undefined {
  const lean = compilerOptions.types?.length === 0;
  const roots = [...new Set(refs.map((ref) => sourceOf(ref.file)))];
  const program = ts.createProgram({ rootNames: roots, options: { ...compilerOptions, allowJs: true } });
  const checker = program.getTypeChecker();
  if (lean && hasUnresolvedImport(ts, program, checker)) return undefined;
  const writer = new SchemaWriter(ts, checker, options.refPrefix, options.reservedNames);
  const handlers = new Map<string, HandlerTypes>();
  const warnings: string[] = [];
  const sortedRefs = [...refs].sort((a, b) => handlerKey(a).localeCompare(handlerKey(b)));
  for (const ref of sortedRefs) {
    const file = relative(options.cwd, ref.file) || ref.file;
    const label = `${ref.exportName}.${ref.method}`;
    const method = findMethod(ts, checker, program, sourceOf(ref.file), ref);
    if (!method) {
      if (lean) return undefined;
      warnings.push(`${file} ${label}: the compiler found no such method; its types are not documented`);
      continue;
    }
    handlers.set(handlerKey(ref), readHandler(ts, checker, writer, method, { file, handler: label }));
    if (lean && writer.metUnresolved) return undefined;
  }
  return { handlers, schemas: writer.schemas, warnings: [...warnings, ...writer.warnings] };
}

/** Whether a module of the application (not a library's declarations) imports one the program cannot find. */
function hasUnresolvedImport(ts: typeof TS, program: TS.Program, checker: TS.TypeChecker): boolean {
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || program.isSourceFileFromExternalLibrary(source)) continue;
    for (const statement of source.statements) {
      const specifier =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
          ? statement.moduleSpecifier
          : ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)
            ? statement.moduleReference.expression
            : undefined;
      if (specifier && !checker.getSymbolAtLocation(specifier)) return true;
    }
  }
  return false;
}

type Method = TS.MethodDeclaration | TS.PropertyDeclaration;

function findMethod(
  ts: typeof TS,
  checker: TS.TypeChecker,
  program: TS.Program,
  file: string,
  ref: HandlerRef,
): Method | undefined {
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return undefined;
  let exported = checker
    .getExportsOfModule(moduleSymbol)
    .find((symbol) => symbol.getName() === ref.exportName);
  if (exported && exported.flags & ts.SymbolFlags.Alias) exported = checker.getAliasedSymbol(exported);
  const declaration = exported?.valueDeclaration ?? exported?.declarations?.[0];
  if (!declaration) return undefined;
  // Inherited handlers count: the member is looked up on the instance type, not the class body.
  const classType = checker.getTypeOfSymbolAtLocation(exported as TS.Symbol, declaration);
  const instance = classType.getConstructSignatures()[0]?.getReturnType();
  const member = instance?.getProperty(ref.method);
  return member?.declarations?.find(
    (node): node is Method => ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node),
  );
}

/** The signature of a method, or of a handler assigned as a property (`GET = () => …`). */
function signatureOf(checker: TS.TypeChecker, method: Method): TS.Signature | undefined {
  return (
    checker.getSignatureFromDeclaration(method as TS.MethodDeclaration) ??
    checker.getTypeAtLocation(method).getCallSignatures()[0]
  );
}

function parameterDocs(ts: typeof TS, method: Method): Map<string, string> {
  const docs = new Map<string, string>();
  for (const tag of ts.getJSDocTags(method)) {
    if (!ts.isJSDocParameterTag(tag) || !ts.isIdentifier(tag.name)) continue;
    const text = ts.getTextOfJSDocComment(tag.comment)?.replace(/^-\s*/, '').trim();
    if (text) docs.set(tag.name.text, text);
  }
  return docs;
}

function readHandler(
  ts: typeof TS,
  checker: TS.TypeChecker,
  writer: SchemaWriter,
  method: Method,
  where: { file: string; handler: string },
): HandlerTypes {
  const signature = signatureOf(checker, method);
  const positionals: (ParameterType | undefined)[] = [];
  const keywords = new Map<string, ParameterType>();
  const docs = parameterDocs(ts, method);
  const declarations = signature?.getDeclaration().parameters ?? [];
  for (const parameter of declarations) {
    const type = checker.getTypeAtLocation(parameter);
    if (ts.isObjectBindingPattern(parameter.name)) {
      for (const element of parameter.name.elements) {
        if (element.dotDotDotToken) continue;
        const name = (element.propertyName ?? element.name).getText();
        const property = checker.getPropertyOfType(type, name);
        const propertyType = property
          ? checker.getTypeOfSymbol(property)
          : checker.getTypeAtLocation(element);
        const schema = writer.schemaOf(writer.withoutUndefined(propertyType), {
          ...where,
          role: `keyword ${name}`,
        });
        const description = writer.describe(property) ?? docs.get(name);
        keywords.set(name, description ? { schema, description } : { schema });
      }
    } else if (ts.isIdentifier(parameter.name) && !parameter.dotDotDotToken) {
      const name = parameter.name.text;
      const schema = writer.schemaOf(writer.withoutUndefined(type), { ...where, role: `parameter ${name}` });
      const description = docs.get(name);
      positionals.push(description ? { schema, description } : { schema });
    } else {
      positionals.push(undefined);
    }
  }
  return { positionals, keywords, returns: returnSchema(ts, checker, writer, signature, where) };
}

function returnSchema(
  ts: typeof TS,
  checker: TS.TypeChecker,
  writer: SchemaWriter,
  signature: TS.Signature | undefined,
  where: { file: string; handler: string },
): JsonSchema | null {
  if (!signature) return {};
  const declared = checker.getReturnTypeOfSignature(signature);
  const type = checker.getAwaitedType(declared) ?? declared;
  const nothing = ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Never;
  if (type.flags & nothing) return null;
  const body =
    type.flags & ts.TypeFlags.Union
      ? (type as TS.UnionType).types.filter((member) => !(member.flags & nothing))
      : [type];
  if (body.length === 0) return null;
  const role = 'return type';
  if (body.length === 1) return writer.schemaOf(body[0] as TS.Type, { ...where, role });
  return writer.schemaOf(checker.getNonNullableType(type), { ...where, role });
}
