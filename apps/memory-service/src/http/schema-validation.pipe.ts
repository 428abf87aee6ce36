import { DomainError } from '@app/common';
import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { badTextPaths, issueCode } from './validation';

/**
 * Validates every `@Body/@Query/@Param({ schema })` with its zod (Standard Schema) DTO — the same
 * schema @nestjs/swagger documents — and turns failures into 400 problems with a code.
 */
@Injectable()
export class SchemaValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const schema = metadata.schema;
    if (!schema) return value;
    const result = await schema['~standard'].validate(value);
    const errors = result.issues
      ? result.issues.slice(0, 20).map((i) => ({
          path:
            (i.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.') ||
            (metadata.data ?? '(root)'),
          message: i.message,
        }))
      : badTextPaths(result.value).map((path) => ({
          path,
          message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
        }));
    if (!result.issues && errors.length === 0) return result.value;
    const code = metadata.type === 'param' ? 'INVALID_ID' : issueCode(result.issues ?? [], 'VALIDATION_FAILED');
    const where =
      metadata.type === 'param' ? `path parameter ${metadata.data}` : metadata.type === 'query' ? 'query' : 'body';
    throw new DomainError(
      'invalid',
      code,
      `invalid ${where}: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      errors,
    );
  }
}
