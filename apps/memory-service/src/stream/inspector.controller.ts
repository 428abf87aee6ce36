import { notFound } from '@app/common';
import { Controller, Get, Header, Param, Redirect, Res } from '@nestjs/common';
import { ApiExcludeController } from '../http/api-docs';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageFile } from '../package-files';
import { Access } from '../http/route-access';

/** The inspector's files: plain HTML, one ES module and CSS, served as they are (no build step). */
const FILES: Record<string, string> = {
  'inspector.js': 'text/javascript; charset=utf-8',
  'context-view.js': 'text/javascript; charset=utf-8',
  'timeline-text.js': 'text/javascript; charset=utf-8',
  'inspector.css': 'text/css; charset=utf-8',
};

/** apps/memory-service/inspector, from the sources (jest), from dist/ (npm start) and from the package alike. */
const inspectorDir = (): string => dirname(packageFile('apps/memory-service/inspector/index.html'));

@ApiExcludeController()
@Controller()
export class InspectorController {
  private readonly files = new Map<string, Buffer>();

  constructor() {
    const dir = inspectorDir();
    for (const name of ['index.html', ...Object.keys(FILES)]) this.files.set(name, readFileSync(join(dir, name)));
  }

  @Access('public')
  @Get()
  @Redirect('/inspector', 302)
  root() {}

  @Access('public')
  @Get('inspector')
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-cache')
  page() {
    return this.files.get('index.html');
  }

  @Access('public')
  @Get('inspector/:file')
  @Header('cache-control', 'no-cache')
  asset(@Param('file') file: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const type = Object.hasOwn(FILES, file) ? FILES[file] : undefined;
    if (!type) throw notFound('NOT_FOUND', `the inspector has no file ${file}`);
    void reply.header('content-type', type);
    return this.files.get(file);
  }
}
