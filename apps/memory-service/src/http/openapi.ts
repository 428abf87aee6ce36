import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** The OpenAPI document, generated from the controllers and their zod (Standard Schema) DTOs. */
export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Lorekeeper')
    .setDescription('Event-sourced narrative memory for AI game masters and game-playing agents. Errors are application/problem+json {type, title, status, detail, code, errors?}.')
    .setVersion('1')
    .addBearerAuth()
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Serves the UI at /docs and the document at /docs/openapi.json. */
export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApi(app), { jsonDocumentUrl: 'docs/openapi.json' });
}
