/* eslint-disable */
// Generated from the x-mmgen-modality extensions of mmgen's GET /v1/openapi.json (API 1.1.1) by `npm run generate -w @mmgen/sdk`.
// Do not edit: a test fails when this file differs from what mmgen serves.

/** Each modality's endpoint, as the server declares it: its path, whether it answers with the finished generation, its prompt field, its image rule. */
export const MODALITY_ENDPOINTS = {
  "image": {"path": "/v1/images", "operationId": "createImage", "sync": true, "promptField": "prompt", "image": "optional"},
  "video": {"path": "/v1/videos", "operationId": "createVideo", "sync": false, "promptField": "prompt", "image": "optional"},
  "voice": {"path": "/v1/voice", "operationId": "createVoice", "sync": true, "promptField": "text", "image": "none"},
  "music": {"path": "/v1/music", "operationId": "createMusic", "sync": false, "promptField": "prompt", "image": "none"},
  "avatar": {"path": "/v1/avatars", "operationId": "createAvatar", "sync": false, "promptField": "text", "image": "required"},
  "chat": {"path": "/v1/chat", "operationId": "createChat", "sync": true, "promptField": "messages", "image": "none"},
  "3d": {"path": "/v1/three-d", "operationId": "createThreeD", "sync": false, "promptField": "prompt", "image": "optional"},
  "upscale": {"path": "/v1/upscale", "operationId": "createUpscale", "sync": false, "promptField": null, "image": "required"},
} as const;
